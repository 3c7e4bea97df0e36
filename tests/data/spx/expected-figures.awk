# EXPECTED.txt -> metric<TAB>name<TAB>exclusive<TAB>inclusive (rows with both 0 dropped), calls<TAB>name<TAB>n
BEGIN { FS = "\t"; OFS = "\t" }
/^metrics_in_file_order = / { n = split(substr($0, 25), M, " ") }
/^\[/ { sec = $0; next }
sec == "[functions]" && !/^#/ && NF > 0 {
	name = $NF
	print "calls", name, $2
	for (i = 1; i <= n; i++) {
		inc = $(4 + 2 * (i - 1)); exc = $(5 + 2 * (i - 1))
		if (inc != 0 || exc != 0) print M[i], name, exc, inc
	}
}
