"""
Shared by bench/video-cpu and bench/first-frame: where things are, the
dependencies, the test clip, headless compositors, a private ummsd, and
process CPU accounting. Nothing here is a test: benchmarks are not in the
meson test suite.
"""
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
BUILD = os.path.join(REPO, "build")
CACHE = os.path.join(BUILD, "bench")
UMMSD = os.path.join(BUILD, "service", "ummsd")
WL_EMBED = os.path.join(BUILD, "tests", "wl-embed")
CLIENT_LIB = os.path.join(BUILD, "client")

# The clip: 1080p25 H.264 (High, 4:2:0, 8 Mbit/s), 10 s, no audio.
WIDTH, HEIGHT, FPS, FRAMES = 1920, 1080, 25, 250
CLIP = os.path.join(CACHE, "clip-1080p25-h264-%d.mp4" % FRAMES)

NOBODY = 65534           # sway 1.7 refuses to run as root: it runs as nobody then
CLK_TCK = os.sysconf("SC_CLK_TCK")


def die(message):
    sys.exit("%s: %s" % (os.path.basename(sys.argv[0]), message))


def log(message):
    print(message, file=sys.stderr, flush=True)


# ---- dependencies and inputs ---------------------------------------------

def require_build():
    for path in (UMMSD, WL_EMBED, os.path.join(CLIENT_LIB, "libumms-client.so.0")):
        if not os.path.exists(path):
            die("%s is missing: build umms first (meson setup build && ninja -C build, "
                "from %s); the benchmark builds nothing itself" % (path, REPO))


def _gst_has(*elements):
    return all(subprocess.run(["gst-inspect-1.0", "--exists", e]).returncode == 0
               for e in elements)


def _apt_install(packages):
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    log("installing " + " ".join(packages))
    cmd = sudo + ["apt-get", "install", "-y", "-q", "--no-install-recommends"] + packages
    if subprocess.run(cmd, env=env).returncode != 0:
        subprocess.run(sudo + ["apt-get", "update", "-q"], env=env, check=True)
        subprocess.run(cmd, env=env, check=True)


def ensure_deps():
    """sway, weston, grim, GStreamer's plugins (tools/install-deps) and mpv."""
    tools = ("sway", "weston", "grim", "gst-launch-1.0", "dbus-daemon", "setpriv")
    if not all(shutil.which(t) for t in tools) or not _gst_has(
            "x264enc", "avdec_h264", "waylandsink", "mp4mux", "qtdemux"):
        subprocess.run([os.path.join(REPO, "tools", "install-deps")], check=True)
    if not shutil.which("mpv"):
        _apt_install(["mpv"])
    if not shutil.which("gst-play-1.0"):     # a peer only: not in tools/install-deps
        _apt_install(["gstreamer1.0-plugins-base-apps"])


def ensure_clip():
    """Generates the clip once into build/bench/: moving SMPTE bars, x264."""
    if os.path.exists(CLIP):
        return CLIP
    os.makedirs(CACHE, exist_ok=True)
    log("generating %s (once; about 10-20 s)" % CLIP)
    tmp = CLIP + ".tmp"
    subprocess.run([
        "gst-launch-1.0", "-q", "videotestsrc", "num-buffers=%d" % FRAMES, "pattern=smpte",
        "horizontal-speed=8", "!",
        "video/x-raw,format=I420,width=%d,height=%d,framerate=%d/1" % (WIDTH, HEIGHT, FPS), "!",
        "x264enc", "bitrate=8000", "speed-preset=faster", "key-int-max=50", "!",
        "video/x-h264,profile=high", "!", "h264parse", "!", "mp4mux", "!",
        "filesink", "location=" + tmp], check=True)
    os.rename(tmp, CLIP)
    return CLIP


# ---- processes and their CPU time ------------------------------------------

def spawn(argv, env=None, **kwargs):
    return subprocess.Popen(argv, env=env, **kwargs)


def reap(proc, timeout=60.0, sig=None):
    """
    Waits for @proc (after sending @sig, if any) and returns its CPU seconds
    (user + system, all its threads and reaped children) from wait4's rusage.
    Killed after @timeout.
    """
    if sig is not None and proc.returncode is None:
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            log("%s did not stop: killed" % proc.args[0])
            proc.kill()
            deadline = time.monotonic() + 5
        time.sleep(0.01)


def proc_cpu(pid):
    """utime + stime + cutime + cstime of a running process, in seconds (10 ms steps)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields[11:15]) / CLK_TCK


def main_thread_sleeps(pid):
    """How often @pid's main thread slept and was woken (voluntary context switches); 0 if gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("voluntary_ctxt_switches:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def process_tree(pid):
    """@pid and its descendants, parents first (those that exist now)."""
    pids = [pid]
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return pids
    for tid in tasks:
        try:
            with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                for child in f.read().split():
                    pids += process_tree(int(child))
        except OSError:
            pass
    return pids


def proc_sample(pid):
    """
    One process now: its name, own CPU seconds (utime + stime, no children),
    and from /proc/PID/smaps_rollup its resident (RSS) and proportional (PSS:
    each shared page divided among the processes that map it) memory in
    kB. None if it is gone.
    """
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
        rss = pss = 0
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return {"pid": pid, "name": stat[stat.index("(") + 1:stat.rindex(")")],
            "cpu": (int(fields[11]) + int(fields[12])) / CLK_TCK, "rss": rss, "pss": pss}


def tree_sample(pid):
    """proc_sample() of @pid's whole process tree."""
    return [s for s in (proc_sample(p) for p in process_tree(pid)) if s]


class TreeSampler:
    """tree_sample() of each of @pids' trees, @delay s from now (mid-playback), on a thread."""

    def __init__(self, pids, delay=5.0):
        self.samples = None
        self.timer = threading.Timer(delay, self._take, args=(pids,))
        self.timer.start()

    def _take(self, pids):
        self.samples = {pid: tree_sample(pid) for pid in pids}

    def result(self):
        self.timer.cancel()
        self.timer.join()
        return self.samples


class LineReader:
    """Reads a child's stdout on a thread, keeping (CLOCK_REALTIME s, line) pairs."""

    def __init__(self, stream):
        self.lines = []
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._run, args=(stream,), daemon=True)
        self.thread.start()

    def _run(self, stream):
        for raw in stream:
            now = time.time()
            with self.cond:
                self.lines.append((now, raw.decode(errors="replace").rstrip("\n")))
                self.cond.notify_all()
        with self.cond:
            self.lines.append((time.time(), None))   # end of file
            self.cond.notify_all()

    def wait_for(self, pattern, timeout):
        """The (time, match) of the first line matching @pattern; None at timeout or EOF."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for when, line in self.lines:
                    if line is None:
                        return None
                    m = regex.search(line)
                    if m:
                        return when, m
                left = deadline - time.monotonic()
                if left <= 0 or not self.cond.wait(left):
                    return None


# ---- compositors ----------------------------------------------------------

def _base_env():
    env = dict(os.environ)
    for name in ("WAYLAND_DISPLAY", "WAYLAND_SOCKET", "DISPLAY", "WAYLAND_DEBUG",
                 "DBUS_SESSION_BUS_ADDRESS", "SWAYSOCK", "I3SOCK"):
        env.pop(name, None)
    return env


class Compositor:
    """A fresh headless compositor in a folder of its own, stopped by stop()."""

    def __init__(self, kind="sway"):
        self.kind = kind
        self.dir = tempfile.mkdtemp(prefix="umms-bench-%s-" % kind)
        drop = kind == "sway" and os.geteuid() == 0
        env = _base_env()
        env.update(XDG_RUNTIME_DIR=self.dir, HOME=self.dir)
        if kind == "sway":
            # As tests/compositor.c: no background client, no Xwayland, no borders.
            config = os.path.join(self.dir, "sway.conf")
            with open(config, "w") as f:
                f.write("output HEADLESS-1 resolution %dx%d\ndefault_border none\n"
                        "default_floating_border none\nxwayland disable\n" % (WIDTH, HEIGHT))
            env.update(WLR_BACKENDS="headless", WLR_LIBINPUT_NO_DEVICES="1",
                       WLR_RENDERER="pixman")
            argv = ["sway", "-c", config]
            if drop:
                for path in (self.dir, config):
                    os.chown(path, NOBODY, NOBODY)
                os.chmod(self.dir, 0o700)
                env["USER"] = env["LOGNAME"] = pwd.getpwuid(NOBODY).pw_name
                argv = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                        "--clear-groups"] + argv
        else:
            # As tests/compositor.c: pixman, desktop-shell without panel or animation.
            config = os.path.join(self.dir, "weston.ini")
            with open(config, "w") as f:
                f.write("[core]\nidle-time=0\n[shell]\npanel-position=none\n"
                        "startup-animation=none\nlocking=false\n[input-method]\npath=\n")
            argv = ["weston", "--backend=headless-backend.so", "--use-pixman",
                    "--width=%d" % WIDTH, "--height=%d" % HEIGHT, "--shell=desktop-shell.so",
                    "--socket=wayland-0", "--idle-time=0", "--config=" + config]
        self.log_path = os.path.join(tempfile.gettempdir(), os.path.basename(self.dir) + ".log")
        with open(self.log_path, "w") as logf:
            self.proc = spawn(argv, env=env, cwd=self.dir, stdout=logf,
                              stderr=subprocess.STDOUT)
        self.display = self._wait_socket()
        # weston's desktop-shell client draws its background after the socket opens.
        time.sleep(0.5 if kind == "weston" else 0.2)

    def _wait_socket(self, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                die("%s exited while starting; see %s" % (self.kind, self.log_path))
            for name in sorted(os.listdir(self.dir)):
                path = os.path.join(self.dir, name)
                if re.fullmatch(r"wayland-\d+", name):
                    s = socket.socket(socket.AF_UNIX)
                    try:
                        s.connect(path)
                        return path
                    except OSError:
                        pass
                    finally:
                        s.close()
            time.sleep(0.02)
        die("%s did not open its socket within %.0f s; see %s"
            % (self.kind, timeout, self.log_path))

    def cpu(self):
        """The compositor's CPU seconds so far (all its processes)."""
        total = proc_cpu(self.proc.pid)
        for child in _children(self.proc.pid):   # weston-desktop-shell, swaybg if any
            total += proc_cpu(child)
        return total

    def client_env(self, runtime_dir):
        env = _base_env()
        env.update(WAYLAND_DISPLAY=self.display, XDG_RUNTIME_DIR=runtime_dir)
        return env

    def stop(self):
        reap(self.proc, timeout=5, sig=signal.SIGTERM)
        shutil.rmtree(self.dir, ignore_errors=True)


def _children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


# ---- a private ummsd -------------------------------------------------------

class Umms:
    """dbus-daemon and ummsd on a private session bus, plus our own bus connection."""

    def __init__(self, runtime_dir, isolation="worker", log=None, worker=None, settings=()):
        from gi.repository import Gio
        self.Gio = Gio
        self.runtime_dir = runtime_dir
        self.config_dir = tempfile.mkdtemp(prefix="umms-bench-config-")  # no user config
        address = "unix:path=" + os.path.join(runtime_dir, "bus")
        env = _base_env()
        self.bus = spawn(["dbus-daemon", "--session", "--nofork", "--nopidfile",
                          "--address=" + address, "--print-address=1"],
                         env=env, stdout=subprocess.PIPE)
        self.address = self.bus.stdout.readline().decode().strip()
        env.update(DBUS_SESSION_BUS_ADDRESS=self.address, XDG_RUNTIME_DIR=runtime_dir,
                   XDG_CONFIG_HOME=self.config_dir)
        self.env = env
        # The engine worker of this build (issue 15), or @worker, or engines
        # inside ummsd; with @log, ummsd's debug log (its workers' included)
        # goes there.
        stderr = open(log, "w") if log else None
        self.ummsd = spawn([UMMSD, "--set", "engine.audio-output=none",
                            "--set", "engine.worker=" + (worker or os.path.join(BUILD, "worker", "umms-engine")),
                            "--set", "engine.isolation=" + isolation] +
                           [a for kv in settings for a in ("--set", kv)] +
                           (["--set", "log.level=debug"] if log else []), env=env,
                           stderr=stderr)
        if stderr:
            stderr.close()
        flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
                 Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
        self.conn = Gio.DBusConnection.new_for_address_sync(self.address, flags, None, None)
        deadline = time.monotonic() + 10
        while not self._dbus("NameHasOwner", "(s)", ("org.umms.Service1",))[0]:
            if self.ummsd.poll() is not None or time.monotonic() > deadline:
                die("ummsd did not come up on its bus")
            time.sleep(0.01)

    def _dbus(self, method, signature, args):
        from gi.repository import GLib
        return self.conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                   "org.freedesktop.DBus", method,
                                   GLib.Variant(signature, args), None,
                                   self.Gio.DBusCallFlags.NONE, 5000, None).unpack()

    def call(self, path, method, signature=None, args=None, timeout_ms=20000):
        """A Player1 method, in-process (no gdbus subprocess in the timing)."""
        from gi.repository import GLib
        params = GLib.Variant(signature, args) if signature else None
        return self.conn.call_sync("org.umms.Service1", path, "org.umms.Player1", method,
                                   params, None, self.Gio.DBusCallFlags.NONE, timeout_ms, None)

    def prop(self, path, name):
        from gi.repository import GLib
        reply = self.conn.call_sync("org.umms.Service1", path,
                                    "org.freedesktop.DBus.Properties", "Get",
                                    GLib.Variant("(ss)", ("org.umms.Player1", name)), None,
                                    self.Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack()[0]

    def embed(self, compositor, wayland_debug=None, video=None, scaled_frames=False):
        """wl-embed filling the output, its player created; returns (proc, reader, path).
        The video fills the window too, or is @video (W, H) at its top left corner;
        with @scaled_frames, its frames come at the size shown
        (umms_client_video_set_scaled_frames)."""
        env = compositor.client_env(self.runtime_dir)
        env.update(DBUS_SESSION_BUS_ADDRESS=self.address,
                   LD_LIBRARY_PATH=CLIENT_LIB + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
        stderr = None
        if wayland_debug:
            env["WAYLAND_DEBUG"] = "1"
            stderr = open(wayland_debug, "w")
        proc = spawn([WL_EMBED, "--size", "%dx%d" % (WIDTH, HEIGHT),
                      "--rect", "0,0,%d,%d" % (video or (WIDTH, HEIGHT))] +
                     (["--scaled-frames"] if scaled_frames else []), env=env,
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        if stderr:
            stderr.close()
        reader = LineReader(proc.stdout)
        got = reader.wait_for(r"^path (\S+)", 10)
        if not got:
            reap(proc, 5, signal.SIGTERM)
            die("wl-embed did not get a player")
        return proc, reader, got[1].group(1)

    @staticmethod
    def quit_embed(proc):
        try:
            proc.stdin.write(b"quit\n")
            proc.stdin.flush()
        except BrokenPipeError:
            pass
        return reap(proc, 10)

    def stop(self):
        """Stops ummsd and the bus; returns their CPU seconds (ummsd, dbus-daemon)."""
        self.conn.close_sync(None)
        ummsd = reap(self.ummsd, 10, signal.SIGTERM)
        bus = reap(self.bus, 5, signal.SIGTERM)
        shutil.rmtree(self.config_dir, ignore_errors=True)
        return ummsd, bus
