/* What the shared libflamegraph exports. The library is compiled with
 * hidden visibility, so only the functions its public headers declare
 * between FG_API_BEGIN and FG_API_END are part of its ABI; everything
 * else (src/util, stage internals) stays inside. */
#ifndef FLAMEGRAPH_API_H
#define FLAMEGRAPH_API_H

#if defined(__GNUC__) || defined(__clang__)
#define FG_API_BEGIN _Pragma("GCC visibility push(default)")
#define FG_API_END _Pragma("GCC visibility pop")
#else
#define FG_API_BEGIN
#define FG_API_END
#endif

#endif
