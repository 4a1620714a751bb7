/*
 * umms-video.js: video on a web page played by umms, the picture shown by
 * ummsd's compositor at the element's place, under the page (or over it).
 *
 * Include it with a plain <script src=".../umms-video.js"></script> (ummsd's
 * web bridge serves it at GET /umms-video.js; no build step, no dependency,
 * ES2020). Then either
 *
 *   <umms-video src="file:///media/film.mkv" autoplay></umms-video>
 *
 * or, to keep a page's own <video> element and its script working:
 *
 *   <video data-umms src="file:///media/film.mkv"></video>
 *
 * Both give the subset of HTMLMediaElement pages use: play(), pause(),
 * currentTime (setting it seeks), duration, paused, ended, volume, muted,
 * playbackRate, src, error; events play, pause, timeupdate, ended, error,
 * loadedmetadata (and volumechange, ratechange, seeking, seeked).
 *
 * How it works. The page talks to ummsd over a WebSocket (the "bridge",
 * JSON-RPC 2.0: docs in the project's web protocol). Each element opens a
 * player there with its src, drives it (play, pause, seek...) and tells
 * ummsd where the element is on the page: its rectangle in CSS pixels
 * relative to the viewport, the part of it not clipped away, whether it is
 * shown, and the device pixel ratio (`place`). ummsd then shows the video at
 * that rectangle of the browser's window, under the window's pixels: the
 * element itself draws nothing (transparent), so where the page is
 * transparent too the video shows through, and whatever the page draws over
 * the element (captions, controls) is drawn over the video.
 *
 * Where the bridge is: the element's `bridge` attribute
 * ("ws://127.0.0.1:PORT/umms?token=TOKEN"), else <meta name="umms-bridge"
 * content="ws://...">, else the page address's fragment
 * "#umms-bridge=ws%3A%2F%2F..." (the value URL-encoded), or its
 * "#port=PORT&token=TOKEN" (ws://127.0.0.1:PORT/umms?token=TOKEN; what
 * ummsd's [web] start-url can hand the browser it starts).
 *
 * Other attributes: `autoplay`, `muted`, `z` (an integer: stacking among
 * several videos, higher on top) and `over` (present: the video goes over
 * the browser's window instead of under it; for browsers that paint their
 * window opaque, such as Chromium).
 *
 * Following the page: every animation frame while an element has a player,
 * its rectangle is measured again (getBoundingClientRect: scrolling, CSS
 * animations and transforms, as the bounding box of a transformed element;
 * CSS zoom, where the browser leaves it out of that rectangle as WebKit
 * does) and `place` is sent only when something changed, so at most once a frame
 * and nothing at all while the page stands still.
 */
(function () {
	'use strict';

	if (typeof window === 'undefined' || window.customElements === undefined)
		return;
	if (window.customElements.get('umms-video'))
		return;   /* included twice */

	/* The protocol's bound on coordinates and sizes. */
	const MAX_COORD = 32768;

	/* ---- the bridge: one WebSocket per bridge address ---------------------- */

	/*
	 * A JSON-RPC 2.0 connection to ummsd. Requests get promises; messages
	 * from ummsd without an id are notifications for one player, handed to
	 * the controller registered for that player's id.
	 */
	class Bridge {
		constructor(url) {
			this.url = url;
			this.nextId = 1;
			this.pending = new Map();   /* request id -> {resolve, reject} */
			this.players = new Map();   /* player id -> Controller */
			this.queue = [];            /* texts waiting for the socket to open */
			this.closed = false;
			this.socket = new WebSocket(url);
			this.socket.onopen = () => {
				for (const text of this.queue)
					this.socket.send(text);
				this.queue = [];
			};
			this.socket.onmessage = (event) => this.receive(event.data);
			this.socket.onclose = () => this.lost('the connection to umms closed');
			this.socket.onerror = () => this.lost('cannot reach umms at the bridge address');
		}

		/* Sends a request; the promise has its result, or an Error named as ummsd names it. */
		request(method, params) {
			if (this.closed)
				return Promise.reject(bridgeError('org.umms.Error.Failed',
					'the connection to umms is closed'));
			const id = this.nextId++;
			const text = JSON.stringify({ jsonrpc: '2.0', id, method, params });
			return new Promise((resolve, reject) => {
				this.pending.set(id, { resolve, reject });
				if (this.socket.readyState === WebSocket.OPEN)
					this.socket.send(text);
				else
					this.queue.push(text);
			});
		}

		receive(data) {
			let message;
			try {
				message = JSON.parse(data);
			} catch (e) {
				return;   /* not JSON: not from ummsd */
			}
			if (message === null || typeof message !== 'object')
				return;
			if (message.id !== undefined && message.id !== null) {
				const waiter = this.pending.get(message.id);
				if (!waiter)
					return;
				this.pending.delete(message.id);
				if (message.error) {
					const e = message.error;
					waiter.reject(bridgeError(e.data && e.data.name, e.message));
				} else {
					waiter.resolve(message.result || {});
				}
				return;
			}
			/* A notification: {method, params: {player, ...}}. */
			const params = message.params;
			if (typeof message.method !== 'string' || !params || typeof params !== 'object')
				return;
			const controller = this.players.get(params.player);
			if (controller)
				controller.notify(message.method, params);
		}

		/* The socket went: every request fails, every player is gone. */
		lost(why) {
			if (this.closed)
				return;
			this.closed = true;
			bridges.delete(this.url);
			for (const waiter of this.pending.values())
				waiter.reject(bridgeError('org.umms.Error.Failed', why));
			this.pending.clear();
			const controllers = Array.from(this.players.values());
			this.players.clear();
			for (const controller of controllers)
				controller.bridgeLost(why);
		}

		close() {
			if (this.closed)
				return;
			/* Messages sent before go out first; ummsd drops the session's players. */
			this.socket.close(1000);
			this.lost('the page went away');
		}
	}

	function bridgeError(name, message) {
		const error = new Error(message || 'umms refused the request');
		error.name = typeof name === 'string' ? name : 'org.umms.Error.Failed';
		return error;
	}

	const bridges = new Map();   /* address -> Bridge */

	function bridgeFor(url) {
		let bridge = bridges.get(url);
		if (!bridge) {
			bridge = new Bridge(url);
			bridges.set(url, bridge);
		}
		return bridge;
	}

	/* The bridge's address for @element: its attribute, the page's meta, the fragment. */
	function bridgeAddress(element) {
		const own = element.getAttribute('bridge');
		if (own)
			return own;
		const meta = document.querySelector('meta[name="umms-bridge"]');
		if (meta && meta.content)
			return meta.content;
		const fragment = new Map();
		for (const part of location.hash.replace(/^#/, '').split('&')) {
			const eq = part.indexOf('=');
			if (eq <= 0)
				continue;
			try {
				fragment.set(part.slice(0, eq), decodeURIComponent(part.slice(eq + 1)));
			} catch (e) {
				/* not URL-encoded right: left out */
			}
		}
		if (fragment.has('umms-bridge'))
			return fragment.get('umms-bridge');
		/* "#port=8123&token=..." (ummsd's [web] start-url can pass those two). */
		const port = fragment.get('port'), token = fragment.get('token');
		if (port && /^[0-9]{1,5}$/.test(port) && token)
			return 'ws://127.0.0.1:' + port + '/umms?token=' + encodeURIComponent(token);
		return null;
	}

	/* ---- geometry ------------------------------------------------------------ */

	function box(x, y, width, height) {
		return { x, y, width: Math.max(0, width), height: Math.max(0, height) };
	}

	function intersect(a, b) {
		const x = Math.max(a.x, b.x), y = Math.max(a.y, b.y);
		return box(x, y, Math.min(a.x + a.width, b.x + b.width) - x,
			Math.min(a.y + a.height, b.y + b.height) - y);
	}

	function contains(outer, inner) {
		return inner.x >= outer.x && inner.y >= outer.y &&
			inner.x + inner.width <= outer.x + outer.width &&
			inner.y + inner.height <= outer.y + outer.height;
	}

	/* Hundredths of a pixel, within the protocol's bounds: sub-pixel noise is no change. */
	function tidy(b) {
		const c = (v) => Math.round(Math.min(MAX_COORD, Math.max(-MAX_COORD, v)) * 100) / 100;
		const s = (v) => Math.round(Math.min(MAX_COORD, Math.max(0, v)) * 100) / 100;
		return { x: c(b.x), y: c(b.y), width: s(b.width), height: s(b.height) };
	}

	/* The part of the layout viewport the page shows (without scroll bars). */
	function viewport() {
		const root = document.documentElement;
		return box(0, 0, root.clientWidth || window.innerWidth,
			root.clientHeight || window.innerHeight);
	}

	/* An element's parent in the composed tree (out of shadow roots to their hosts). */
	function composedParent(node) {
		if (node.parentElement)
			return node.parentElement;
		const root = node.getRootNode ? node.getRootNode() : null;
		return root && root.host ? root.host : null;
	}

	function fullscreenElement() {
		return document.fullscreenElement || document.webkitFullscreenElement || null;
	}

	/* Whether @ancestor is @node or holds it, across shadow roots. */
	function holds(ancestor, node) {
		for (let n = node; n; n = composedParent(n)) {
			if (n === ancestor)
				return true;
		}
		return false;
	}

	/*
	 * Whether getBoundingClientRect leaves out CSS zoom (WebKit gives an
	 * element under zoom: 2 half its size on screen, Chromium its size on
	 * screen): measured once, on an element of its own.
	 */
	let zoomLeftOut = null;

	function measureZoom() {
		const probe = document.createElement('div');
		probe.style.cssText = 'position:absolute;left:0;top:0;width:10px;height:10px;' +
			'zoom:2;visibility:hidden;pointer-events:none';
		(document.body || document.documentElement).appendChild(probe);
		const width = probe.getBoundingClientRect().width;
		probe.remove();
		return width > 0 && width < 15;
	}

	/* The CSS zoom @element is drawn with: its own and its ancestors'. */
	function zoomOf(element) {
		let zoom = 1;
		for (let n = element; n; n = composedParent(n)) {
			const z = parseFloat(getComputedStyle(n).zoom);
			if (Number.isFinite(z) && z > 0)
				zoom *= z;
		}
		return zoom;
	}

	/* @element's bounding box in the viewport's CSS pixels, zoom included. */
	function rectOf(element) {
		const r = element.getBoundingClientRect();
		if (zoomLeftOut === null)
			zoomLeftOut = measureZoom();
		const zoom = zoomLeftOut ? zoomOf(element) : 1;
		if (zoom === 1)
			return r;
		return { left: r.left * zoom, top: r.top * zoom, width: r.width * zoom,
			height: r.height * zoom };
	}

	/*
	 * The element's content box (inside its border and padding) in CSS pixels
	 * of the viewport. A transformed element's bounding box is scaled from
	 * its layout size, so a rotated video gets the box around it.
	 */
	function contentBox(element, style) {
		const r = rectOf(element);
		const w = element.offsetWidth || r.width, h = element.offsetHeight || r.height;
		const fx = w > 0 ? r.width / w : 1, fy = h > 0 ? r.height / h : 1;
		const px = (name) => parseFloat(style[name]) || 0;
		const left = (px('borderLeftWidth') + px('paddingLeft')) * fx;
		const right = (px('borderRightWidth') + px('paddingRight')) * fx;
		const top = (px('borderTopWidth') + px('paddingTop')) * fy;
		const bottom = (px('borderBottomWidth') + px('paddingBottom')) * fy;
		return box(r.left + left, r.top + top, r.width - left - right, r.height - top - bottom);
	}

	/*
	 * What clips the element: the viewport and every ancestor whose overflow
	 * is not visible (its padding box). Above a position:fixed element only
	 * the viewport clips (its ancestors' overflow does not apply to it).
	 */
	function clipBox(element, style) {
		let clip = viewport();
		if (style.position === 'fixed')
			return clip;
		for (let n = composedParent(element); n; n = composedParent(n)) {
			if (n === document.body || n === document.documentElement)
				break;   /* their overflow is the viewport's */
			const s = getComputedStyle(n);
			if (s.overflowX !== 'visible' || s.overflowY !== 'visible') {
				const r = rectOf(n);
				const fx = n.offsetWidth > 0 ? r.width / n.offsetWidth : 1;
				const fy = n.offsetHeight > 0 ? r.height / n.offsetHeight : 1;
				clip = intersect(clip, box(r.left + n.clientLeft * fx, r.top + n.clientTop * fy,
					n.clientWidth * fx, n.clientHeight * fy));
			}
			if (s.position === 'fixed')
				break;
		}
		return clip;
	}

	/*
	 * Where @host is now: the `place` parameters without the player id.
	 * Hidden (display:none, visibility:hidden, out of the document, the page
	 * hidden, another element fullscreen): visible false, the last rectangle
	 * kept.
	 */
	function measure(host, last) {
		const hidden = { rect: last ? last.rect : box(0, 0, 0, 0), clip: null, visible: false };
		if (!host.isConnected || document.visibilityState === 'hidden')
			return hidden;
		const full = fullscreenElement();
		if (full === host)
			return { rect: tidy(viewport()), clip: null, visible: true };
		if (full && !holds(full, host))
			return hidden;   /* the fullscreen element covers the page */
		if (host.getClientRects().length === 0)
			return hidden;   /* display:none, here or in an ancestor */
		const style = getComputedStyle(host);
		if (style.visibility !== 'visible')
			return hidden;   /* inherited: an ancestor's hidden counts */
		const rect = contentBox(host, style);
		const clip = intersect(clipBox(host, style), rect);
		return {
			rect: tidy(rect),
			/* null: nothing is cut off. */
			clip: contains(clip, rect) ? null : tidy(clip),
			visible: true,
		};
	}

	/* ---- following the page, once a frame ---------------------------------------- */

	const tracked = new Set();   /* controllers with a player */
	let frameRequested = false;

	function track(controller) {
		tracked.add(controller);
		if (!frameRequested) {
			frameRequested = true;
			requestAnimationFrame(onFrame);
		}
	}

	function onFrame() {
		frameRequested = false;
		for (const controller of Array.from(tracked)) {
			try {
				controller.follow();
			} catch (e) {
				/* One element's trouble stops no other's following. */
				console.error('umms-video:', e);
			}
		}
		if (tracked.size > 0) {
			frameRequested = true;
			requestAnimationFrame(onFrame);
		}
	}

	/* ---- a player and its element --------------------------------------------- */

	/*
	 * The player behind one element (a <umms-video>, or an upgraded
	 * <video data-umms>): its state as the page sees it, the requests to
	 * ummsd and the events back.
	 */
	class Controller {
		constructor(host) {
			this.host = host;
			this.bridge = null;
			this.player = null;       /* a promise of the player id, while open */
			this.playerId = null;
			this.src = '';
			this.reset();
			this.volume = 1;
			this.muted = false;
			this.rate = 1;
		}

		/* The media state of a new source. */
		reset() {
			this.paused = true;
			this.ended = false;
			this.duration = NaN;
			this.position = 0;          /* seconds, at positionAt */
			this.positionAt = now();
			this.serverPlaying = false;
			this.inFlight = 0;          /* play/pause requests not answered yet */
			this.metadata = false;
			this.error = null;
			this.lastPlace = null;      /* the last `place` sent, as text */
			this.lastMeasure = null;
		}

		fire(type) {
			this.host.dispatchEvent(new Event(type));
		}

		fail(error) {
			this.error = { code: 4, name: error.name, message: error.message };
			this.fire('error');
		}

		currentTime() {
			if (this.paused || !this.serverPlaying)
				return this.position;
			const t = this.position + (now() - this.positionAt) / 1000 * this.rate;
			return Number.isFinite(this.duration) ? Math.min(t, this.duration) : t;
		}

		/* Opens @src in a new player (the old one closed); '' closes only. */
		load(src) {
			this.close();
			this.src = resolve(src);
			this.reset();
			if (!this.src || !this.host.isConnected)
				return;
			const address = bridgeAddress(this.host);
			if (!address) {
				this.fail(bridgeError('org.umms.Error.InvalidArgument',
					'no umms bridge: set the bridge attribute, a <meta name="umms-bridge">, ' +
					'or #umms-bridge= in the page address'));
				return;
			}
			const bridge = bridgeFor(address);
			this.bridge = bridge;
			const opened = bridge.request('open', { uri: this.src }).then((result) => {
				if (this.player !== opened || typeof result.player !== 'number') {
					/* Closed or replaced while opening: that player is not wanted. */
					if (typeof result.player === 'number')
						bridge.request('close', { player: result.player }).catch(() => {});
					throw bridgeError('org.umms.Error.Failed', 'the player was closed');
				}
				this.playerId = result.player;
				bridge.players.set(result.player, this);
				track(this);
				return result.player;
			});
			this.player = opened;
			opened.then(() => {
				/* What the page set before the player was there. */
				if (this.volume !== 1 || this.muted)
					this.call('volume', { volume: this.volume, muted: this.muted });
				if (this.rate !== 1)
					this.call('rate', { rate: this.rate });
				if (this.host.hasAttribute('autoplay'))
					this.play().catch(() => {});
			}, (error) => {
				if (this.player === opened)
					this.fail(error);
			});
		}

		/* A request for this element's player, once it is open. */
		call(method, params) {
			if (!this.player)
				return Promise.reject(bridgeError('org.umms.Error.NotFound',
					'no media: set src first'));
			const bridge = this.bridge;
			return this.player.then((id) => bridge.request(method,
				Object.assign({ player: id }, params || {})));
		}

		play() {
			if (!this.player)
				return Promise.reject(bridgeError('org.umms.Error.NotFound',
					'no media: set src first'));
			if (this.ended) {
				/* Played to its end: play starts over, as HTML does. */
				this.setCurrentTime(0);
			}
			this.setPaused(false);
			return this.request('play');
		}

		pause() {
			if (!this.player)
				return;
			this.position = this.currentTime();
			this.positionAt = now();
			this.setPaused(true);
			this.request('pause').catch(() => {});
		}

		/* A play or pause: ummsd's state notifications wait until it is answered. */
		request(method) {
			this.inFlight++;
			return this.call(method).then(() => {
				this.inFlight--;
				this.serverPlaying = method === 'play';
				this.positionAt = now();
			}, (error) => {
				this.inFlight--;
				this.setPaused(true);
				this.fail(error);
				throw error;
			});
		}

		setPaused(paused) {
			if (paused === this.paused)
				return;
			this.paused = paused;
			if (!paused)
				this.ended = false;
			this.fire(paused ? 'pause' : 'play');
		}

		setCurrentTime(time) {
			if (!Number.isFinite(time))
				throw new TypeError('currentTime must be a finite number');
			const t = Math.max(0, time);
			this.position = t;
			this.positionAt = now();
			this.ended = false;
			if (!this.player)
				return;
			this.fire('seeking');
			this.call('seek', { time: t }).then(() => {
				this.fire('seeked');
				this.fire('timeupdate');
			}, (error) => this.fail(error));
		}

		setVolume(volume) {
			if (!(volume >= 0 && volume <= 1))
				throw new RangeError('volume ' + volume + ' is outside 0 to 1');
			if (volume === this.volume)
				return;
			this.volume = volume;
			this.fire('volumechange');
			if (this.playerId !== null)
				this.call('volume', { volume }).catch((error) => this.fail(error));
		}

		setMuted(muted) {
			muted = !!muted;
			if (muted === this.muted)
				return;
			this.muted = muted;
			this.fire('volumechange');
			if (this.playerId !== null)
				this.call('volume', { muted }).catch((error) => this.fail(error));
		}

		setRate(rate) {
			/* umms plays at any rate but 0 (backwards too); pause() is the way to stop. */
			if (!Number.isFinite(rate) || rate === 0)
				throw new RangeError('playbackRate must be a finite number other than 0');
			if (rate === this.rate)
				return;
			this.position = this.currentTime();
			this.positionAt = now();
			this.rate = rate;
			this.fire('ratechange');
			if (this.playerId !== null)
				this.call('rate', { rate }).catch((error) => this.fail(error));
		}

		/* A notification from ummsd for this player. */
		notify(method, params) {
			switch (method) {
			case 'state':
				if (params.state === 'buffering')
					break;   /* paused or not as before: waiting for data */
				this.serverPlaying = params.state === 'playing';
				this.positionAt = now();
				if (this.inFlight === 0)
					this.setPaused(!this.serverPlaying);
				break;
			case 'position':
				if (Number.isFinite(params.time)) {
					this.position = params.time;
					this.positionAt = now();
					this.fire('timeupdate');
				}
				break;
			case 'duration':
				if (typeof params.duration === 'number')
					this.duration = params.duration < 0 ? Infinity : params.duration;
				if (!this.metadata) {
					this.metadata = true;
					this.fire('loadedmetadata');
				}
				break;
			case 'ended':
				if (Number.isFinite(this.duration))
					this.position = this.duration;
				this.serverPlaying = false;
				this.setPaused(true);
				this.ended = true;
				this.fire('timeupdate');
				this.fire('ended');
				break;
			case 'error':
				this.fail(bridgeError(params.name, params.message));
				break;
			}
		}

		/* Once a frame: tells ummsd where the element is, if that changed. */
		follow() {
			if (this.playerId === null)
				return;
			const place = measure(this.host, this.lastMeasure);
			this.lastMeasure = place;
			const z = parseInt(this.host.getAttribute('z') || '0', 10);
			const params = {
				rect: place.rect,
				clip: place.clip,
				z: Number.isFinite(z) ? Math.max(-1000, Math.min(1000, z)) : 0,
				visible: place.visible,
				scale: window.devicePixelRatio || 1,
				over: this.host.hasAttribute('over'),
			};
			const text = JSON.stringify(params);
			if (text === this.lastPlace)
				return;
			this.lastPlace = text;
			this.call('place', params).catch((error) => this.fail(error));
		}

		/* Closes the player: its video leaves the screen. */
		close() {
			tracked.delete(this);
			const bridge = this.bridge, id = this.playerId;
			this.player = null;
			this.playerId = null;
			this.bridge = null;
			if (bridge && id !== null) {
				bridge.players.delete(id);
				bridge.request('close', { player: id }).catch(() => {});
			}
		}

		/* The element left the document: hidden at once, closed unless it came back. */
		detached() {
			if (this.playerId !== null && this.bridge) {
				const params = { rect: this.lastMeasure ? this.lastMeasure.rect : box(0, 0, 0, 0),
					visible: false };
				this.bridge.request('place', Object.assign({ player: this.playerId },
					params)).catch(() => {});
				this.lastPlace = null;
			}
			/* A move (removed and inserted in one task) keeps the player. */
			queueMicrotask(() => {
				if (!this.host.isConnected)
					this.close();
			});
		}

		attached() {
			if (!this.player && this.src)
				this.load(this.src);
			else if (this.playerId !== null)
				track(this);
		}

		bridgeLost(why) {
			tracked.delete(this);
			this.player = null;
			this.playerId = null;
			this.bridge = null;
			this.serverPlaying = false;
			this.setPaused(true);
			if (!pageGone)
				this.fail(bridgeError('org.umms.Error.Failed', why));
		}
	}

	function now() {
		return performance.now();
	}

	/* @src as an absolute address (relative ones against the page's), '' for none. */
	function resolve(src) {
		if (!src)
			return '';
		try {
			return new URL(String(src), document.baseURI).href;
		} catch (e) {
			return String(src);
		}
	}

	/* ---- the page going away ---------------------------------------------------- */

	let pageGone = false;
	const controllers = new Set();   /* every controller, to reopen after a back/forward */

	window.addEventListener('pagehide', () => {
		pageGone = true;
		for (const controller of controllers)
			controller.close();
		for (const bridge of Array.from(bridges.values()))
			bridge.close();
	});
	window.addEventListener('pageshow', (event) => {
		if (!event.persisted)
			return;
		/* Back from the back/forward cache: new players for the same sources. */
		pageGone = false;
		for (const controller of controllers) {
			if (controller.host.isConnected && controller.src)
				controller.load(controller.src);
		}
	});
	/* Hidden or shown again (a tab switch): measured anew now, not at the next frame. */
	document.addEventListener('visibilitychange', () => {
		for (const controller of tracked)
			controller.follow();
	});

	/* ---- the HTMLMediaElement subset, on any element ------------------------------ */

	/*
	 * Defines the media properties and methods on @target (a prototype, or
	 * one <video> element), each going to the controller @get returns.
	 */
	function defineMedia(target, get) {
		const props = {
			play: { value() { return get(this).play(); } },
			pause: { value() { get(this).pause(); } },
			currentTime: {
				get() { return get(this).currentTime(); },
				set(v) { get(this).setCurrentTime(Number(v)); },
			},
			duration: { get() { return get(this).duration; } },
			paused: { get() { return get(this).paused; } },
			ended: { get() { return get(this).ended; } },
			error: { get() { return get(this).error; } },
			volume: {
				get() { return get(this).volume; },
				set(v) { get(this).setVolume(Number(v)); },
			},
			muted: {
				get() { return get(this).muted; },
				set(v) { get(this).setMuted(v); },
			},
			playbackRate: {
				get() { return get(this).rate; },
				set(v) { get(this).setRate(Number(v)); },
			},
		};
		for (const name of Object.keys(props))
			props[name].configurable = true;
		Object.defineProperties(target, props);
	}

	/* ---- <umms-video> ---------------------------------------------------------------- */

	const controllerOf = new WeakMap();   /* element -> Controller */

	function controllerFor(element) {
		let controller = controllerOf.get(element);
		if (!controller) {
			controller = new Controller(element);
			controllerOf.set(element, controller);
			controllers.add(controller);
		}
		return controller;
	}

	class UmmsVideoElement extends HTMLElement {
		static get observedAttributes() {
			return ['src', 'bridge', 'muted'];
		}

		constructor() {
			super();
			/*
			 * Draws nothing of its own: the video shows through. Children
			 * (captions, controls) are drawn over it. 300x150 when the page
			 * sets no size, as <video>.
			 */
			const shadow = this.attachShadow({ mode: 'open' });
			const style = document.createElement('style');
			style.textContent = ':host { display: inline-block; position: relative; ' +
				'width: 300px; height: 150px; background: transparent; } ' +
				':host([hidden]) { display: none; }';
			shadow.append(style, document.createElement('slot'));
		}

		get src() {
			return this.getAttribute('src') || '';
		}

		set src(value) {
			this.setAttribute('src', String(value));
		}

		connectedCallback() {
			const controller = controllerFor(this);
			if (this.hasAttribute('muted'))
				controller.setMuted(true);
			if (controller.src !== resolve(this.src))
				controller.load(this.src);
			else
				controller.attached();
		}

		disconnectedCallback() {
			controllerFor(this).detached();
		}

		attributeChangedCallback(name, old, value) {
			const controller = controllerFor(this);
			if (name === 'muted') {
				controller.setMuted(value !== null);
			} else if (this.isConnected && (name === 'src' || name === 'bridge')) {
				if (name === 'src' && resolve(value) === controller.src)
					return;
				controller.load(this.src);
			}
		}
	}

	defineMedia(UmmsVideoElement.prototype, controllerFor);
	window.customElements.define('umms-video', UmmsVideoElement);
	window.UmmsVideoElement = UmmsVideoElement;

	/* ---- <video data-umms>: the page's own element, played by umms -------------------- */

	/*
	 * The element stays (the page's references to it keep working); its own
	 * media loading is stopped (src and poster taken off, so it draws
	 * nothing and plays nothing), and the media subset is defined on it,
	 * going to umms. Its src is read from the attribute or a <source> child.
	 */
	function upgradeVideo(video) {
		if (controllerOf.has(video))
			return;
		const source = video.querySelector('source[src]');
		const src = video.getAttribute('src') || (source ? source.getAttribute('src') : '');
		const autoplay = video.hasAttribute('autoplay'), muted = video.hasAttribute('muted');
		/* Stop the browser's own playback before it starts. */
		video.removeAttribute('src');
		video.removeAttribute('poster');
		video.removeAttribute('controls');
		video.removeAttribute('autoplay');
		if (source)
			source.remove();
		try {
			HTMLMediaElement.prototype.load.call(video);
		} catch (e) {
			/* nothing loaded */
		}
		if (autoplay)
			video.setAttribute('autoplay', '');   /* read by Controller.load */
		video.style.background = 'transparent';
		const controller = controllerFor(video);
		defineMedia(video, controllerFor);
		Object.defineProperty(video, 'src', {
			configurable: true,
			get() { return controller.src; },
			set(v) { controller.load(v); },
		});
		if (muted)
			controller.setMuted(true);
		controller.load(src);
	}

	function upgradeAll(root) {
		if (root.matches && root.matches('video[data-umms]'))
			upgradeVideo(root);
		if (root.querySelectorAll)
			root.querySelectorAll('video[data-umms]').forEach(upgradeVideo);
	}

	/* Videos now and added later; removed ones are seen by their controller each frame. */
	function watchVideos() {
		upgradeAll(document);
		new MutationObserver((records) => {
			for (const record of records) {
				for (const node of record.addedNodes) {
					if (node.nodeType === Node.ELEMENT_NODE)
						upgradeAll(node);
				}
				for (const node of record.removedNodes) {
					if (node.nodeType !== Node.ELEMENT_NODE)
						continue;
					const videos = node.matches('video[data-umms]') ? [node] :
						Array.from(node.querySelectorAll('video[data-umms]'));
					for (const video of videos) {
						const controller = controllerOf.get(video);
						if (controller)
							controller.detached();
					}
				}
				for (const node of record.addedNodes) {
					if (node.nodeType !== Node.ELEMENT_NODE)
						continue;
					const videos = node.matches('video[data-umms]') ? [node] :
						Array.from(node.querySelectorAll('video[data-umms]'));
					for (const video of videos) {
						const controller = controllerOf.get(video);
						if (controller)
							controller.attached();
					}
				}
			}
		}).observe(document.documentElement, { childList: true, subtree: true });
	}

	if (document.readyState === 'loading')
		document.addEventListener('DOMContentLoaded', watchVideos);
	else
		watchVideos();
})();
