// libfuse3 (Debian libfuse3-dev, 3.14) for `whalesim lazyfs`. fuse.h wants the API version
// before it is included, and its entry points are versioned through function-like macros
// (fuse_new → fuse_new_31, fuse_loop_mt → fuse_loop_mt_312), which Swift cannot call: these
// wrappers are the only way the Swift side reaches them.
#ifndef WHALESIM_CFUSE3_SHIM_H
#define WHALESIM_CFUSE3_SHIM_H
#define FUSE_USE_VERSION 31
#include <fuse.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

static inline struct fuse *whalesim_fuse_new(struct fuse_args *args, const struct fuse_operations *ops, void *user_data) {
    return fuse_new(args, ops, sizeof(struct fuse_operations), user_data);
}
/// Serves requests on several threads (libfuse's defaults) until fuse_exit or a signal.
static inline int whalesim_fuse_loop_mt(struct fuse *f) {
    return fuse_loop_mt(f, NULL);
}
/// The private data handed to fuse_new, from inside a callback.
static inline void *whalesim_fuse_private_data(void) {
    struct fuse_context *context = fuse_get_context();
    return context ? context->private_data : 0;
}
/// fuse_file_info's bit fields are not settable from Swift.
static inline void whalesim_fi_set_direct_io(struct fuse_file_info *fi, int on) { fi->direct_io = on ? 1 : 0; }
static inline void whalesim_fi_set_nonseekable(struct fuse_file_info *fi, int on) { fi->nonseekable = on ? 1 : 0; }
#endif
