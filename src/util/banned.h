/* Functions that make bugs easy to write; use the fg_ helpers instead
 * (fg_strbuf_addf, fg_parse_u64, fg_view). Included by every util and lib
 * file after the system headers. */
#ifndef FG_UTIL_BANNED_H
#define FG_UTIL_BANNED_H

#define FG_BANNED(fn) sorry_##fn##_is_banned

#undef strcpy
#define strcpy(x, y) FG_BANNED(strcpy)
#undef strcat
#define strcat(x, y) FG_BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) FG_BANNED(strncpy)
#undef sprintf
#define sprintf(...) FG_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) FG_BANNED(vsprintf)
#undef sscanf
#define sscanf(...) FG_BANNED(sscanf)
#undef atoi
#define atoi(x) FG_BANNED(atoi)
#undef atol
#define atol(x) FG_BANNED(atol)
#undef strtok
#define strtok(x, y) FG_BANNED(strtok)
#undef gets
#define gets(x) FG_BANNED(gets)

#endif
