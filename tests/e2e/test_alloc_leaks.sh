# The leaked view holds what the program leaked, and only that
# (tests/e2e/alloc/leaks.c, holder.c, pool.cpp): what is still allocated
# after every destructor of every library has run; what the C and C++
# runtimes keep for the process's life (libstdc++'s exception pool,
# libc's stdio buffer) is released at the very end and listed apart.
cc -O1 -g -fno-omit-frame-pointer -shared -fPIC -o libholder.so "$FG_SRC/tests/e2e/alloc/holder.c"
cc -O1 -g -fno-omit-frame-pointer -o leaks "$FG_SRC/tests/e2e/alloc/leaks.c" \
	-L. -lholder -Wl,-rpath,"$PWD"

# a library that frees in its destructor what its constructor allocated
# (its destructor runs after the preloaded tracker's)
check_exit "a library's block freed in its destructor" 0 \
	flamegraph --alloc=leaked --format folded -o leaks.folded -- ./leaks
# (the frames below main are libc's start-up, which differs between releases)
check_eq "only leak()'s block is leaked" "leaks;...;main;leak 321" \
	"$(sed 's/^leaks;.*;main;/leaks;...;main;/' leaks.folded)"
check_contains "the summary's leaked figure" err "321 bytes leaked in 1 blocks"
check_exit "the same, its allocations" 0 \
	flamegraph --alloc=bytes --format folded -o bytes.folded -- ./leaks
check_contains "the library's block is among the allocations" bytes.folded ";hold 5000$"

# libc's stdio buffer: kept for the process's life, listed apart
check_exit "stdio's buffer" 0 \
	flamegraph --alloc=leaked --format folded -o stdout.folded -- ./leaks stdout
check_contains "the program's output" out "written through stdio"
check_eq "stdio's buffer is not a leak" "321" "$(awk '{ s += $NF } END { print s }' stdout.folded)"
check_contains "the runtimes' blocks listed apart" err \
	"note: the C and C\\+\\+ runtimes kept .* in [0-9]+ blocks? for the process's life"

# a C++ program that frees all it allocates: nothing leaked
if command -v c++ >/dev/null; then
	c++ -O1 -g -fno-omit-frame-pointer -o pool "$FG_SRC/tests/e2e/alloc/pool.cpp"
	check_exit "C++: no leak" 4 flamegraph --alloc=leaked --format folded -o pool.folded -- ./pool
	check_contains "C++: the leaked view is empty" err "the leaked view of ./pool is empty — it freed every block"
	check_contains "C++: libstdc++'s pool listed apart" err \
		"note: the C and C\\+\\+ runtimes kept [0-9.]+ KB in [0-9]+ blocks for the process's life"
	check_exit "C++: its allocations" 0 flamegraph --alloc=bytes --format folded -o poolb.folded -- ./pool
	check_contains "C++: the vector's strings" poolb.folded ";operator new 2[0-9]{4}$"
else
	echo "note: no C++ compiler: the C++ runtime's part is left out"
fi
