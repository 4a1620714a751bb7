"""
WAYLAND_DEBUG=1 traces: their time stamps, and the video frames a client
committed (for bench/first-frame and bench/video-cpu's frames-shown check).
"""
import re

from benchlib import WIDTH, HEIGHT

# ---- WAYLAND_DEBUG traces ------------------------------------------------

# libwayland 1.21 (connection.c, wl_closure_print) stamps each line with
# CLOCK_REALTIME in microseconds truncated to 32 bits, printed as ms:
# "[%7u.%03u]" of (unsigned)(tv_sec * 1000000 + tv_nsec / 1000). It wraps
# every 2^32 us (71.6 min), so times are compared modulo that.
WRAP_MS = 2 ** 32 / 1000.0
TRACE_LINE = re.compile(r"^\[\s*(\d+)\.(\d{3})\]\s+(->\s+)?(\w+)@(\d+)\.(\w+)\((.*)\)\s*$")


def trace_ms(realtime_s):
    """A CLOCK_REALTIME time (time.time()) as libwayland prints it."""
    return (int(realtime_s * 1e6) % 2 ** 32) / 1000.0


def ms_after(start_realtime_s, trace_stamp_ms):
    return (trace_stamp_ms - trace_ms(start_realtime_s)) % WRAP_MS


def parse_trace(path):
    """[(ms, sent, interface, id, message, args)] of a WAYLAND_DEBUG=1 log."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            m = TRACE_LINE.match(line)
            if m:
                out.append((int(m.group(1)) + int(m.group(2)) / 1000.0, bool(m.group(3)),
                            m.group(4), int(m.group(5)), m.group(6), m.group(7)))
    return out


def _ids(args, interface):
    return [int(x) for x in re.findall(interface + r"@(\d+)", args)]


def video_frames(events):
    """
    The video frames a client committed, in order: [(ms, feedback id or None)],
    ms being the trace stamp of the commit that made the frame the surface's
    current state. The video surface is the one that got the most
    WIDTHxHEIGHT buffers attached. A frame attached to a synchronized
    subsurface takes effect with its parent's commit (wl_subsurface), which
    is what waylandsink's first frame and umms's geometry changes do.
    """
    size, parent, sync, attached = {}, {}, {}, {}
    for _, sent, iface, oid, msg, args in events:
        if sent and iface == "wl_shm_pool" and msg == "create_buffer":
            parts = [p.strip() for p in args.split(",")]
            size[_ids(parts[0], "wl_buffer")[0]] = (int(parts[2]), int(parts[3]))
        elif sent and iface == "wl_surface" and msg == "attach":
            buf = _ids(args, "wl_buffer")
            if buf and size.get(buf[0]) == (WIDTH, HEIGHT):
                attached[oid] = attached.get(oid, 0) + 1
    if not attached:
        return []
    video = max(attached, key=attached.get)
    size, sub_surface, frames = {}, {}, []
    pending = None          # the video frame attached, not yet committed
    cached = {}             # surface -> frame waiting in its cached state
    feedback = None

    def eff_sync(s):
        while s in parent:
            if sync.get(s, True):
                return True
            s = parent[s]
        return False

    for ms, sent, iface, oid, msg, args in events:
        if not sent:
            continue
        if iface == "wl_shm_pool" and msg == "create_buffer":
            parts = [p.strip() for p in args.split(",")]
            size[_ids(parts[0], "wl_buffer")[0]] = (int(parts[2]), int(parts[3]))
        elif iface == "wl_subcompositor" and msg == "get_subsurface":
            sub, = _ids(args, "wl_subsurface")
            child, par = _ids(args, "wl_surface")
            sub_surface[sub], parent[child], sync[child] = child, par, True
        elif iface == "wl_subsurface" and msg in ("set_sync", "set_desync"):
            sync[sub_surface.get(oid)] = msg == "set_sync"
        elif iface == "wp_presentation" and msg == "feedback" and \
                _ids(args, "wl_surface") == [video]:
            feedback = _ids(args, "wp_presentation_feedback")[0]
        elif iface == "wl_surface" and msg == "attach" and oid == video:
            buf = _ids(args, "wl_buffer")
            pending = {"fb": None} if buf and size.get(buf[0]) == (WIDTH, HEIGHT) else None
        elif iface == "wl_surface" and msg == "commit":
            # This commit applies its own pending frame and its sync children's caches.
            landing = []
            if oid == video and pending is not None:
                pending["fb"], feedback = feedback, None
                landing.append(pending)
                pending = None
            for child in [c for c in cached if parent.get(c) == oid]:
                landing.append(cached.pop(child))
            for frame in landing:
                if eff_sync(oid):
                    cached[oid] = frame
                else:
                    frames.append((ms, frame["fb"]))
    return frames


def presented(events, feedback_id, after_ms):
    """The wp_presentation_feedback.presented time (s, the compositor's clock) of a feedback."""
    for ms, sent, iface, oid, msg, args in events:
        if not sent and iface == "wp_presentation_feedback" and oid == feedback_id and \
                ms >= after_ms:
            if msg != "presented":
                return None
            hi, lo, nsec = [int(x) for x in args.split(",")[:3]]
            return (hi << 32 | lo) + nsec / 1e9
    return None
