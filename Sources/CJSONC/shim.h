// json-c (Debian libjson-c-dev) for `whalesim bench json`, which compares it with Foundation's
// JSON on the protocol's hot path (docs/decisions.md).
#include <json-c/json.h>
