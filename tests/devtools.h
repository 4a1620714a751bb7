/*
 * A small client of Chromium's DevTools protocol, for what a test must do
 * as the user would (a click's user gesture: entering full screen): the
 * browser started with --remote-debugging-port=PORT; the page's target
 * found at http://127.0.0.1:PORT/json, its webSocketDebuggerUrl opened
 * (libsoup 3) and Runtime.evaluate sent over it. It waits by iterating the
 * thread-default main context, so the test's page server goes on answering.
 */
#ifndef UMMS_TESTS_DEVTOOLS_H
#define UMMS_TESTS_DEVTOOLS_H

struct devtools;

/*
 * Connects to the first page whose address starts with @url_prefix on the
 * DevTools port @port; fails the test after @timeout_ms (the browser
 * starting counts in it).
 */
struct devtools *devtools_connect(unsigned port, const char *url_prefix, unsigned timeout_ms);
/*
 * Evaluates @expression in the page as if the user had clicked
 * (userGesture), awaiting a promise it returns; fails the test on an
 * exception or after @timeout_ms. Returns the result's JSON ("undefined"
 * when it has no value); caller frees.
 */
char *devtools_evaluate(struct devtools *devtools, const char *expression, unsigned timeout_ms);
/*
 * Sends @method with @params (a JSON object) and waits for the reply;
 * fails the test on an error or after @timeout_ms. Returns the reply's
 * result (JSON); caller frees.
 */
char *devtools_call(struct devtools *devtools, const char *method, const char *params,
	unsigned timeout_ms);
void devtools_free(struct devtools *devtools);

#endif
