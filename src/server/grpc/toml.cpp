// The daemon's TOML reader (toml.h): toml++ behind a C callback. Exceptions stay inside.
#include "server/grpc/toml.h"

#include <toml++/toml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace {

struct Walk {
    czk_toml_fn fn;
    void *arg;
    czk_err *err;
};

int scalar(const Walk &w, const std::string &key, const toml::node &n, int in_array) {
    std::string text;
    czk_toml_type type = CZK_TOML_OTHER;
    if (auto s = n.as_string()) {
        type = CZK_TOML_STRING;
        text = s->get();
    } else if (auto i = n.as_integer()) {
        type = CZK_TOML_INTEGER;
        text = std::to_string(i->get());
    } else if (auto f = n.as_floating_point()) {
        type = CZK_TOML_FLOAT;
        std::ostringstream o;
        o << f->get();
        text = o.str();
    } else if (auto b = n.as_boolean()) {
        type = CZK_TOML_BOOL;
        text = b->get() ? "true" : "false";
    } else {
        std::ostringstream o;
        n.visit([&o](auto &&v) { o << v; });
        text = o.str();
    }
    return w.fn(w.arg, key.c_str(), type, text.c_str(), in_array, w.err);
}

int walk(const Walk &w, const std::string &prefix, const toml::table &t) {
    for (auto &&[k, v] : t) {
        std::string key =
            prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
        int rc = CZK_OK;
        if (auto sub = v.as_table()) {
            rc = walk(w, key, *sub);
        } else if (auto arr = v.as_array()) {
            if (arr->empty())
                rc = w.fn(w.arg, key.c_str(), CZK_TOML_STRING, nullptr, 1, w.err);
            for (auto &&e : *arr) {
                if (e.is_table() || e.is_array()) {
                    auto line = e.source().begin.line;
                    return czk_err_set(w.err, CZK_EFORMAT,
                                       "%s: line %u: arrays of tables or arrays are not used in "
                                       "czk's config",
                                       key.c_str(), static_cast<unsigned>(line));
                }
                rc = scalar(w, key, e, 1);
                if (rc != CZK_OK)
                    break;
            }
        } else {
            rc = scalar(w, key, v, 0);
        }
        if (rc != CZK_OK)
            return rc;
    }
    return CZK_OK;
}

} // namespace

extern "C" int czk_toml_read(const char *path, czk_toml_fn fn, void *arg, czk_err *err) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return czk_err_set(err, CZK_EIO, "%s: %s", path, std::strerror(errno));
    std::stringstream buf;
    buf << in.rdbuf();
    try {
        toml::table t = toml::parse(buf.str(), std::string_view(path));
        Walk w{fn, arg, err};
        return walk(w, "", t);
    } catch (const toml::parse_error &e) {
        return czk_err_set(
            err, CZK_EFORMAT, "%s:%u:%u: %s", path, static_cast<unsigned>(e.source().begin.line),
            static_cast<unsigned>(e.source().begin.column), std::string(e.description()).c_str());
    } catch (const std::exception &e) {
        return czk_err_set(err, CZK_EFORMAT, "%s: %s", path, e.what());
    }
}
