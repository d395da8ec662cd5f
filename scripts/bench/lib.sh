# Shared by the bench scripts (sourced, not run): the median of numbers given as arguments, the
# mean of the two middle ones for an even count.
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
