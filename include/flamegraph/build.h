/* The builder's header is flamegraph/builder.h; this name stays for
 * programs written before it was renamed. */
#ifndef FLAMEGRAPH_BUILD_H
#define FLAMEGRAPH_BUILD_H

#include "flamegraph/builder.h"

#endif
