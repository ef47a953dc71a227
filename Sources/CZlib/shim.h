// zlib (Debian zlib1g-dev) for WhaleRecord: the run record's compact history and packed histograms
// are deflated streams. deflateInit/inflateInit are macros, so Swift calls them through these.
#include <zlib.h>

static inline int whale_deflate_init(z_stream *stream, int level) { return deflateInit(stream, level); }
static inline int whale_inflate_init(z_stream *stream) { return inflateInit(stream); }
