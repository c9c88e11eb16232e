/* libflamegraph: the whole pipeline behind the flamegraph programs.
 *
 *   manifest -> build -> check -> record -> collapse -> render
 *
 * Each stage has its own header; this umbrella includes them all. */
#ifndef FLAMEGRAPH_FLAMEGRAPH_H
#define FLAMEGRAPH_FLAMEGRAPH_H

#include "flamegraph/error.h"

#endif
