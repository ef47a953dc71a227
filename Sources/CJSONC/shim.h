// json-c (Debian libjson-c-dev) for `whalesim bench json`, which compares it with Foundation's
// JSON on the protocol's hot path (docs/decisions/0002-protocol-codec-wirecodec-json-c-measured.md).
#include <json-c/json.h>
