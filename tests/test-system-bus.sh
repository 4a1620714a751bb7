#!/bin/bash
# The system bus policy (data/org.umms.Service1.conf) on a real dbus-daemon:
# the distribution's system.conf (its default-deny policy) listening on a
# private socket, with our policy file included. ummsd serves it as root,
# restricted as its system unit restricts it where that needs no systemd:
# no new privileges, no capabilities at all, umask 077, its XDG directories
# and GStreamer's registry where the unit puts them. Clients run under
# setpriv as existing users with their groups set (no account is created or
# changed): one in no group, one in group video. The first creates a player and plays a clip but is refused
# (org.freedesktop.DBus.Error.AccessDenied, from the bus) every Display1,
# Recorder1, Recording1 and Resources1 call, Guide1's imports, Parental1's
# settings, Entitlement1's Grant and Revoke, and every property Set on the
# display; the second is let through. Parental1.Unlock (guarded by the PIN)
# is everyone's.
set -u
src=${UMMS_TEST_SOURCE_ROOT:?}
build=${UMMS_TEST_BUILD_ROOT:?}
clips=${UMMS_TEST_CLIPS:?}
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (ummsd as root, clients under setpriv --reuid)"
	exit 77
fi
video_gid=$(getent group video | cut -d: -f3)
[ -n "$video_gid" ] || { echo "not ok: no group video"; exit 1; }
system_conf=/usr/share/dbus-1/system.conf
[ -r "$system_conf" ] || { echo "not ok: no $system_conf"; exit 1; }

tmp=$(mktemp -d /tmp/umms-system-bus.XXXXXX) || exit 1
chmod 755 "$tmp"
bus_pid=''
ummsd_pid=''
stop() { # pid: SIGTERM, and SIGKILL 10 s later
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null || return 0
	for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}
cleanup() {
	stop "$ummsd_pid"
	stop "$bus_pid"
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { # on stderr: ok's stdout may be going nowhere
	{
		echo "not ok: $*"
		echo "--- ummsd's log"
		cat "$tmp/ummsd.log" 2>/dev/null
	} >&2
	exit 1
}

# system.conf as it is, less what would touch the machine (its user, pid
# file, syslog, socket, activation and the policies installed in system.d),
# plus our policy file.
sed -e '/<user>/d' -e '/<fork\/>/d' -e '/<pidfile>/d' -e '/<syslog\/>/d' \
	-e '/<standard_system_servicedirs\/>/d' -e '/<servicehelper>/d' \
	-e '/<include[ >]/d' -e '/<includedir>/d' \
	-e "s|<listen>.*</listen>|<listen>unix:path=$tmp/system_bus_socket</listen>|" \
	-e "s|</busconfig>|<include>$src/data/org.umms.Service1.conf</include></busconfig>|" \
	"$system_conf" > "$tmp/system.conf"
grep -q "<type>system</type>" "$tmp/system.conf" || fail "system.conf: no <type>system"
grep -q 'deny send_type="method_call"' "$tmp/system.conf" || fail "system.conf: not default-deny"
dbus-daemon --config-file="$tmp/system.conf" --nofork --nopidfile --print-address=3 \
	3>"$tmp/address" 2>"$tmp/bus.log" &
bus_pid=$!
for _ in $(seq 100); do [ -s "$tmp/address" ] && break; sleep 0.1; done
[ -s "$tmp/address" ] || { cat "$tmp/bus.log"; fail "dbus-daemon did not start"; }
# A broken policy file is only warned about, and its rules are lost.
grep -qi "org.umms.Service1.conf" "$tmp/bus.log" && { cat "$tmp/bus.log"; fail "the policy file did not load"; }
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/system_bus_socket

# ummsd as the system unit runs it, minus what needs systemd (seccomp,
# namespaces): its directories as the unit's Environment= sets them. The
# headless screen composes with pixman: llvmpipe's JIT deadlocks ASan's slow
# unwinder (tests/meson.build), and the renderer is not what is tested here.
mkdir -p "$tmp/etc" "$tmp/lib/umms/recordings" "$tmp/cache/umms" "$tmp/run/umms" "$tmp/capture"
chmod 700 "$tmp/run/umms"
(
	umask 077
	exec env HOME="$tmp/lib/umms" XDG_CONFIG_HOME="$tmp/etc" XDG_DATA_HOME="$tmp/lib" \
		XDG_STATE_HOME="$tmp/lib" XDG_CACHE_HOME="$tmp/cache" \
		XDG_RUNTIME_DIR="$tmp/run/umms" \
		GST_REGISTRY_1_0="$tmp/cache/umms/gstreamer-registry.bin" \
		setpriv --no-new-privs --inh-caps=-all --bounding-set=-all -- \
		"$build/service/ummsd" --system --headless \
		--set engine.audio-output=none --set service.mpris=false \
		--set display.renderer=pixman
) >"$tmp/ummsd.log" 2>&1 &
ummsd_pid=$!

# A client: the uid of user $1 (dbus-daemon lets no uid without an account
# on the system bus), in no group or, when $2 is "video", group video only:
# the bus reads a client's groups from its socket (SO_PEERGROUPS), so no
# account is changed. Users 1 and 2 are nobody and daemon, both in no group
# video of /etc/group.
user_1=$(getent passwd nobody | cut -d: -f3)
user_2=$(getent passwd daemon | cut -d: -f3)
if [ -z "$user_1" ] || [ -z "$user_2" ]; then fail "no user nobody or daemon"; fi
as() {
	local var=user_$1 groups=--clear-groups
	local id=${!var}
	[ "$2" = video ] && groups=--groups=$video_gid
	shift 2
	env -i PATH="$PATH" HOME=/nonexistent DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" \
		setpriv --reuid="$id" --regid="$id" "$groups" --no-new-privs -- "$@"
}
call() { # who group object method args...
	local who=$1 group=$2 object=$3 method=$4
	shift 4
	# As long as the harness waits: ummsd answers first, with an error if
	# need be.
	as "$who" "$group" gdbus call --system --timeout 130 --dest org.umms.Service1 \
		--object-path "$object" --method "$method" "$@" 2>&1
}
ok() { # what: who group object method args...
	local what=$1 out
	shift
	out=$(call "$@") || fail "$what: $out"
	echo "ok: $what" >&2
	printf '%s' "$out"
}
denied() { # what: who group object method args...
	local what=$1 out
	shift
	out=$(call "$@") && fail "$what: allowed ($out)"
	grep -q 'org.freedesktop.DBus.Error.AccessDenied' <<<"$out" || fail "$what: $out"
	echo "ok: $what: AccessDenied" >&2
}

gdbus wait --system --timeout 60 org.umms.Service1 || fail "ummsd did not take its name"
as 1 none true || fail "setpriv cannot run a client"

# The service's user only may own the name (root here; another user not).
out=$(as 1 video gdbus call --system --dest org.freedesktop.DBus \
	--object-path /org/freedesktop/DBus --method org.freedesktop.DBus.RequestName \
	org.umms.Service1 0 2>&1) && fail "a user took org.umms.Service1: $out"
grep -q AccessDenied <<<"$out" || fail "RequestName: $out"

P=org.freedesktop.DBus.Properties
D=/org/umms/display/0

# Everyone: players, and reading anything.
player=$(ok "CreatePlayer (no group)" 1 none /org/umms org.umms.Manager1.CreatePlayer \
	"{'attended': <false>}" | sed -n "s/^(objectpath '\(.*\)',)$/\1/p")
[ -n "$player" ] || fail "CreatePlayer: no player"
ok "SetUri (no group)" 1 none "$player" org.umms.Player1.SetUri "$clips/long.mkv" >/dev/null
ok "Play (no group)" 1 none "$player" org.umms.Player1.Play >/dev/null
ok "Set Player1.Volume (no group)" 1 none "$player" $P.Set org.umms.Player1 Volume "<0.5>" >/dev/null
playing=
for _ in $(seq 100); do
	state=$(call 1 none "$player" $P.Get org.umms.Player1 State)
	position=$(call 1 none "$player" $P.Get org.umms.Player1 Position |
		sed -n 's/^(<int64 \([0-9]*\)>,)$/\1/p')
	if [ "$state" = "(<'playing'>,)" ] && [ "${position:-0}" -gt 0 ]; then
		playing=1
		break
	fi
	sleep 0.2
done
[ -n "$playing" ] || fail "the clip does not play: State $state, Position ${position:-?}"
echo "ok: playing, position $position" >&2
volume=$(call 1 none "$player" $P.Get org.umms.Player1 Volume)
[ "$volume" = "(<0.5>,)" ] || fail "Volume: $volume"
ok "Get Display1.Zoom (no group)" 1 none $D $P.Get org.umms.Display1 Zoom >/dev/null
ok "GetAll Display1 (no group)" 1 none $D $P.GetAll org.umms.Display1 >/dev/null
ok "Get Resources1.Decoders (no group)" 1 none /org/umms $P.Get org.umms.Resources1 Decoders >/dev/null
ok "Introspect (no group)" 1 none /org/umms org.freedesktop.DBus.Introspectable.Introspect >/dev/null
ok "Guide1.ListChannels (no group)" 1 none /org/umms org.umms.Guide1.ListChannels >/dev/null

# No group: no changes to the screen, recordings or resources.
denied "Set Display1.Zoom (no group)" 1 none $D $P.Set org.umms.Display1 Zoom "<'fill'>"
denied "Display1.ShowPlayer (no group)" 1 none $D org.umms.Display1.ShowPlayer "$player"
denied "Display1.Capture (no group)" 1 none $D org.umms.Display1.Capture "$tmp/capture/no.png"
denied "Recorder1.Record (no group)" 1 none /org/umms org.umms.Recorder1.Record \
	"file://$clips/av.mkv" "$tmp/lib/umms/recordings/no.mkv" "{}"
denied "Resources1 call (no group)" 1 none /org/umms org.umms.Resources1.Anything
denied "Guide1.ImportM3U (no group)" 1 none /org/umms org.umms.Guide1.ImportM3U "$tmp/none.m3u"
denied "Guide1.ImportXMLTV (no group)" 1 none /org/umms org.umms.Guide1.ImportXMLTV "$tmp/none.xml"
denied "Parental1.SetPin (no group)" 1 none /org/umms org.umms.Parental1.SetPin "''" "'1234'"
denied "Parental1.SetEnabled (no group)" 1 none /org/umms org.umms.Parental1.SetEnabled "''" true
denied "Parental1.SetBlockUnrated (no group)" 1 none /org/umms \
	org.umms.Parental1.SetBlockUnrated "''" true
denied "Parental1.SetThreshold (no group)" 1 none /org/umms org.umms.Parental1.SetThreshold \
	"''" "'age'" 12
denied "Parental1.LockChannel (no group)" 1 none /org/umms org.umms.Parental1.LockChannel \
	"''" 1 true
ok "Get Parental1.PinSet (no group)" 1 none /org/umms $P.Get org.umms.Parental1 PinSet >/dev/null
ok "Parental1.Unlock (no group)" 1 none /org/umms org.umms.Parental1.Unlock "$player" "''" \
	"'time'" 10 >/dev/null
denied "Entitlement1.Grant (no group)" 1 none /org/umms org.umms.Entitlement1.Grant \
	"file://$clips/av.mkv" "@a{sv} {}"
denied "Entitlement1.Revoke (no group)" 1 none /org/umms org.umms.Entitlement1.Revoke \
	"file://$clips/av.mkv"
ok "Entitlement1.List (no group)" 1 none /org/umms org.umms.Entitlement1.List >/dev/null
zoom=$(call 1 none $D $P.Get org.umms.Display1 Zoom)
[ "$zoom" = "(<'letterbox'>,)" ] || fail "Zoom changed to $zoom"
[ -e "$tmp/capture/no.png" ] && fail "a refused Capture wrote its file"

# Group video: let through (to ummsd, which answers for itself).
ok "Set Display1.Zoom (video)" 2 video $D $P.Set org.umms.Display1 Zoom "<'fill'>" >/dev/null
zoom=$(call 1 none $D $P.Get org.umms.Display1 Zoom)
[ "$zoom" = "(<'fill'>,)" ] || fail "Zoom after Set: $zoom"
ok "Display1.ShowPlayer (video)" 2 video $D org.umms.Display1.ShowPlayer "$player" >/dev/null
ok "Entitlement1.Grant (video)" 2 video /org/umms org.umms.Entitlement1.Grant \
	"file://$tmp/entitled.mkv" "@a{sv} {'max-plays': <uint32 1>}" >/dev/null
out=$(ok "Entitlement1.Get (no group)" 1 none /org/umms org.umms.Entitlement1.Get \
	"file://$tmp/entitled.mkv")
grep -q "'max-plays': <uint32 1>" <<<"$out" || fail "Get after Grant: $out"
ok "Display1.Capture (video)" 2 video $D org.umms.Display1.Capture "$tmp/capture/video.png" >/dev/null
[ "$(head -c 8 "$tmp/capture/video.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
	fail "Capture wrote no PNG"
# ummsd's umask: what it writes is its own.
[ "$(stat -c %a "$tmp/capture/video.png")" = 600 ] ||
	fail "capture mode $(stat -c %a "$tmp/capture/video.png"), not 600 (umask 077)"
recording=$(ok "Recorder1.Record (video)" 2 video /org/umms org.umms.Recorder1.Record \
	"file://$clips/av.mkv" "$tmp/lib/umms/recordings/video.mkv" "{}" |
	sed -n "s/^(objectpath '\(.*\)',)$/\1/p")
[ -n "$recording" ] || fail "Record: no recording"
denied "Recording1.Cancel (no group)" 1 none "$recording" org.umms.Recording1.Cancel
out=$(call 2 video /org/umms org.umms.Resources1.Anything) && fail "Resources1.Anything answered: $out"
grep -q 'org.freedesktop.DBus.Error.UnknownMethod' <<<"$out" ||
	fail "Resources1 call (video) did not reach ummsd: $out"
echo "ok: Resources1 call (video) reaches ummsd (UnknownMethod)" >&2
out=$(call 2 video /org/umms org.umms.Guide1.ImportXMLTV "$tmp/none.xml") &&
	fail "ImportXMLTV of a missing file answered: $out"
grep -q 'org.umms.Error.NotFound' <<<"$out" ||
	fail "Guide1.ImportXMLTV (video) did not reach ummsd: $out"
echo "ok: Guide1.ImportXMLTV (video) reaches ummsd (NotFound)" >&2
ok "Parental1.SetEnabled (video)" 2 video /org/umms org.umms.Parental1.SetEnabled "''" true \
	>/dev/null
enabled=$(call 1 none /org/umms $P.Get org.umms.Parental1 Enabled)
[ "$enabled" = "(<true>,)" ] || fail "Parental1.Enabled after SetEnabled (video): $enabled"
ok "DestroyPlayer (no group)" 1 none /org/umms org.umms.Manager1.DestroyPlayer "$player" >/dev/null

kill -0 "$ummsd_pid" 2>/dev/null || fail "ummsd exited"
[ -s "$tmp/cache/umms/gstreamer-registry.bin" ] || fail "no GStreamer registry in the cache directory"
# SIGTERM: ummsd stops as systemctl stop has it stop, and says nothing bad.
kill "$ummsd_pid"
wait "$ummsd_pid"
status=$?
ummsd_pid=''
[ $status -eq 0 ] || fail "ummsd exited $status on SIGTERM"
grep -E 'Sanitizer|runtime error|CRITICAL' "$tmp/ummsd.log" && fail "ummsd's log has reports"
echo ok
