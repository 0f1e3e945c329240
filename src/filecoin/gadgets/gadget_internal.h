/*
 * What the gadget sources (gadgets.c, sha256_gadget.c, snap/snap.c) share and nothing else
 * should see: TRY, their one way to return early. Include it from .c files only, so that the
 * short name never reaches a header's users.
 */
#ifndef CZK_FILECOIN_GADGETS_GADGET_INTERNAL_H
#define CZK_FILECOIN_GADGETS_GADGET_INTERNAL_H

#include "util/status.h"

/* Evaluates `expr` (a czk status) and returns it from the enclosing function unless it is
 * CZK_OK. The constraint system's errors are sticky (cs.h), so returning at the first one loses
 * nothing and skips the gadget's remaining work. */
#define TRY(expr)                                                                                  \
    do {                                                                                           \
        int try_rc_ = (expr);                                                                      \
        if (try_rc_ != CZK_OK)                                                                     \
            return try_rc_;                                                                        \
    } while (0)

#endif /* CZK_FILECOIN_GADGETS_GADGET_INTERNAL_H */
