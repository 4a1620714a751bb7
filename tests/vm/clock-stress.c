/*
 * The vm-clock test: sleeps that must end. Several threads sleep for
 * random short times (nanosleep and poll timeouts, as GLib's main loops
 * and the tests' own naps do), first on an idle machine, then beside a
 * thread that keeps one CPU busy in bursts. A sleep that overruns by more
 * than a second fails the test: under TCG the guest was seen to lose a
 * vCPU's timer interrupt and leave a sleeper there for minutes (see
 * tests/vm/README.md). A sleep that never ends is caught by the VM's
 * deadline report.
 *
 * Usage: clock-stress [SECONDS_PER_PHASE]   (default 10)
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LATE_NS 1000000000L

struct phase {
	const char *name;
	int sleepers;
	bool busy;
	bool jumps;
};

static long phase_end_ns;
static atomic_long sleeps, late, worst_ns;

static long
now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void *
sleeper(void *data)
{
	unsigned seed = (unsigned)(uintptr_t)data;
	while (now_ns() < phase_end_ns) {
		long want = 100000 + rand_r(&seed) % 5000000;
		long begun = now_ns();
		if (rand_r(&seed) & 1) {
			struct timespec ts = { 0, want };
			nanosleep(&ts, NULL);
		} else {
			poll(NULL, 0, (int)(want / 1000000) + 1);
		}
		long over = now_ns() - begun - want;
		long worst = atomic_load(&worst_ns);
		while (over > worst && !atomic_compare_exchange_weak(&worst_ns, &worst, over))
			;
		if (over > LATE_NS) {
			atomic_fetch_add(&late, 1);
			fprintf(stderr, "clock-stress: a %ld us sleep ended %ld ms late\n",
				want / 1000, over / 1000000);
		}
		atomic_fetch_add(&sleeps, 1);
	}
	return NULL;
}

/* 3 ms of work, 2 ms of sleep, over and over: a CPU busy in bursts. */
static void *
burner(void *data)
{
	(void)data;
	volatile unsigned long spins = 0;
	while (now_ns() < phase_end_ns) {
		long begun = now_ns();
		while (now_ns() - begun < 3000000)
			spins++;
		struct timespec ts = { 0, 2000000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/*
 * The wall clock set an hour ahead, then back, every 100 ms (as
 * recorder-vm's clock-jump test does once): sleepers measure the
 * monotonic clock, which a jump must not move. Root only (the VM).
 */
static void *
jumper(void *data)
{
	(void)data;
	long hour = 3600;
	while (now_ns() < phase_end_ns) {
		struct timespec wall;
		clock_gettime(CLOCK_REALTIME, &wall);
		wall.tv_sec += hour;
		if (clock_settime(CLOCK_REALTIME, &wall) != 0) {
			perror("clock-stress: clock_settime");
			return NULL;
		}
		hour = -hour;
		struct timespec ts = { 0, 100000000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	if (!(seconds > 0 && seconds < 3600)) {
		fprintf(stderr, "usage: %s [SECONDS_PER_PHASE]\n", argv[0]);
		return 2;
	}
	static const struct phase phases[] = {
		{ "idle, 2 sleepers", 2, false },
		{ "busy, 6 sleepers", 6, true },
		{ "clock jumps, 4 sleepers", 4, false, true },
	};
	const size_t n_phases = sizeof(phases) / sizeof(phases[0]);
	int failed = 0;
	for (size_t p = 0; p < n_phases; p++) {
		const struct phase *phase = &phases[p];
		atomic_store(&sleeps, 0);
		atomic_store(&late, 0);
		atomic_store(&worst_ns, 0);
		phase_end_ns = now_ns() + (long)(seconds * 1e9);
		pthread_t threads[8];
		int n = 0;
		for (int i = 0; i < phase->sleepers; i++)
			pthread_create(&threads[n++], NULL, sleeper, (void *)(uintptr_t)(i + 1));
		if (phase->busy)
			pthread_create(&threads[n++], NULL, burner, NULL);
		if (phase->jumps)
			pthread_create(&threads[n++], NULL, jumper, NULL);
		for (int i = 0; i < n; i++)
			pthread_join(threads[i], NULL);
		long count = atomic_load(&sleeps), lost = atomic_load(&late);
		printf("%s %s: %ld sleeps, %ld late by over 1 s, the worst %.1f ms over\n",
			lost || count == 0 ? "not ok" : "ok", phase->name, count, lost,
			atomic_load(&worst_ns) / 1e6);
		if (lost || count == 0)
			failed++;
	}
	printf("clock-stress: %d of %zu phases without a late sleep\n",
		(int)n_phases - failed, n_phases);
	return failed ? 1 : 0;
}
