#!/bin/sh
# Which folder may include which (ARCHITECTURE.md, "Layers"): base/ is the
# bottom; engines/ and targets/ sit on it, side by side; client/ uses base/
# only (targets/gl/ also client/core/, libumms-video-core); service/ may
# include anything. An #include "name.h" whose name is a
# header of a folder a layer may not use fails this test (TAP output).
set -u
root=${1:-${UMMS_TEST_SOURCE_ROOT:-$(dirname "$0")/..}}
cd "$root" || { echo "Bail out! no source root $root"; exit 1; }

headers() {
	# Header names (no folder) under the given folders.
	find "$@" -name '*.h' | sed 's|.*/||' | sort -u
}

# layer|forbidden folders
rules='base|engines targets service client
engines|targets service client
targets|engines service
client|engines targets service
worker|targets service client'

n=0
failed=0
echo "$rules" | {
	while IFS='|' read -r layer forbidden; do
		n=$((n + 1))
		# A name that the layer itself (or base/) also has is its own.
		own=$(headers "$layer" base)
		bad=$(headers $forbidden | grep -vxF -e "$own")
		# file:include for each #include "..." naming a forbidden header,
		# or a path through a forbidden folder.
		hits=$(find "$layer" -name '*.[ch]' -exec grep -H \
				'^[[:space:]]*#[[:space:]]*include[[:space:]]*"' {} + |
			awk -v bad="$bad" -v dirs="$forbidden" '
				BEGIN {
					n = split(bad, b, "\n"); for (i = 1; i <= n; i++) badname[b[i]] = 1
					nd = split(dirs, d, " ")
				}
				{
					file = substr($0, 1, index($0, ":") - 1)
					inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
					name = inc; sub(/.*\//, "", name)
					hit = name in badname
					for (i = 1; i <= nd; i++)
						if (index(inc, d[i] "/")) hit = 1
					if (hit) print file ":" inc
				}' | sort)
		if [ -n "$hits" ]; then
			echo "not ok $n - $layer/ includes nothing from $forbidden"
			for h in $hits; do echo "# $h"; done
			failed=1
		else
			echo "ok $n - $layer/ includes nothing from $forbidden"
		fi
	done
	echo "1..$n"
	exit $failed
}
