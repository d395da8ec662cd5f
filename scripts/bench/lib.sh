# Shared by the bench scripts (sourced, not run). median: the median of numbers given as arguments, the
# mean of the two middle ones for an even count.
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# The class path that runs a benchmark (parreg.bench): builds the product and the benchmarks
# (profile bench: target/bench-classes, never in the product jar), then prints target/classes,
# target/bench-classes and the compile-scope jars (with the "provided" CSV libraries the
# benchmarks compare against, which the product does not ship). Call from the repository root.
bench_classpath() {
  mvn -q -B -o -Pbench -Dparreg.dist.skip=true -DskipTests compile >&2
  local cpf
  cpf=$(mktemp)
  mvn -q -B -o dependency:build-classpath -Dmdep.includeScope=compile -Dmdep.outputFile="$cpf" >/dev/null
  echo "target/classes:target/bench-classes:$(cat "$cpf")"
  rm -f "$cpf"
}
