#!/bin/bash
# The systemd units data/ builds, checked by systemd's own tools:
# `systemd-analyze security --offline` rates each at most 3.0 (the issue's
# bar; 9.6 before hardening), and `systemd-analyze verify` has nothing to say
# about either (no unknown key, no value it ignores, an ExecStart it can run).
# The user unit is also verified by the user manager's rules (--user).
set -u
build=${UMMS_TEST_BUILD_ROOT:?}
tmp=$(mktemp -d /tmp/umms-units.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "not ok: $*"; failed=1; }

# Offline analysis needs no running systemd; --user wants a runtime dir.
mkdir -m 700 "$tmp/run"
export XDG_RUNTIME_DIR=$tmp/run

check() {
	local unit=$1 mode=$2 name=ummsd.service out rc exposure scope=()
	[ "$mode" = user ] && scope=(--user)
	mkdir -p "$tmp/$mode"
	# The unit as built, but starting this build's ummsd (verify wants an
	# executable ExecStart=).
	sed -e "s|^ExecStart=[^ ]*ummsd|ExecStart=$build/service/ummsd|" \
		"$build/data/$unit" > "$tmp/$mode/$name"
	grep -q "^ExecStart=$build/service/ummsd" "$tmp/$mode/$name" ||
		fail "$unit: no ExecStart= naming ummsd"
	grep -q '^Documentation=' "$tmp/$mode/$name" || fail "$unit: no Documentation="

	out=$(systemd-analyze "${scope[@]}" security \
		--offline=true --threshold=30 "$tmp/$mode/$name" 2>&1)
	rc=$?
	exposure=$(sed -n 's/^→ Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p' <<<"$out")
	echo "$unit ($mode): exposure $exposure"
	[ -n "$exposure" ] || fail "$unit: no overall exposure in: $out"
	[ $rc -eq 0 ] || fail "$unit: exposure above 3.0 (rc $rc)"
	awk -v e="${exposure:-99}" 'BEGIN { exit !(e <= 3.0) }' ||
		fail "$unit: exposure $exposure > 3.0"

	out=$(cd "$tmp/$mode" && systemd-analyze "${scope[@]}" \
		verify --man=no "$name" 2>&1)
	rc=$?
	[ $rc -eq 0 ] || fail "$unit: verify exited $rc"
	[ -z "$out" ] || fail "$unit: verify says: $out"
}

check ummsd.service user
check ummsd.service system
check ummsd-system.service system

# The system unit's user is the one the bus policy lets own the name.
grep -q '^User=umms$' "$build/data/ummsd-system.service" || fail "system unit: not User=umms"
grep -q 'policy user="umms"' "${UMMS_TEST_SOURCE_ROOT:?}/data/org.umms.Service1.conf" ||
	fail "bus policy: user umms may not own the name"

[ $failed -eq 0 ] && echo ok
exit $failed
