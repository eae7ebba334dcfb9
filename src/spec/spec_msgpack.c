/* spec_msgpack.c — canonical spec JSON <-> msgpack (spec.h): thin wrappers
 * over io/msgpack_json.h, which keeps key order, integers as integers and
 * reals as float64, so JSON -> msgpack -> JSON reproduces the canonical
 * bytes. */
#include "io/msgpack_json.h"
#include "spec/spec.h"

pf_status pf_spec_to_msgpack(const json_t *norm, char **buf, size_t *len)
{
    return pf_json_to_msgpack(norm, buf, len);
}

pf_status pf_spec_from_msgpack(const char *buf, size_t len, json_t **out)
{
    return pf_json_from_msgpack(buf, len, out);
}
