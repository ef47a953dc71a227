// epoll and eventfd (glibc's headers; Swift's Glibc module does not include them) for WhaleLoad's
// EpollClientLoop, the floor client of `bench run --floor`. Linux only: elsewhere this is empty.
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
