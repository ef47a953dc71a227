// epoll and eventfd (glibc's headers; Swift's Glibc module does not include them) for WhaleLoad's
// EpollClientLoop, the floor client of `bench run --floor`. Linux only: elsewhere this is empty.
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
/// Names the calling thread (at most 15 bytes are kept): prctl is variadic, which Swift cannot call.
static inline void whalesim_name_thread(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }
#endif
