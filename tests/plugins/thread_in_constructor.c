/*
 * A library named like a plugin that is none (no entry symbol), whose
 * constructor starts a thread that goes on running its code after the
 * loader refused it: the loader must never unmap it. The thread waits for a
 * byte on the pipe EMBER_TEST_WAKE_FD names, then answers on
 * EMBER_TEST_DONE_FD from the library's own code; without both variables
 * the constructor starts nothing.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static int g_wake_fd = -1;
static int g_done_fd = -1;

/* Runs after the wake-up, so its code must still be mapped then. */
static char answer(char woken_by) { return (char)(woken_by + 1); }

static void* wait_then_answer(void* unused) {
  (void)unused;
  char byte = 0;
  if (read(g_wake_fd, &byte, 1) == 1) {
    byte = answer(byte);
    if (write(g_done_fd, &byte, 1) != 1) return NULL;
  }
  return NULL;
}

__attribute__((constructor)) static void start_thread(void) {
  const char* wake = getenv("EMBER_TEST_WAKE_FD");
  const char* done = getenv("EMBER_TEST_DONE_FD");
  if (wake == NULL || done == NULL) return;
  g_wake_fd = atoi(wake);
  g_done_fd = atoi(done);
  pthread_t thread;
  if (pthread_create(&thread, NULL, wait_then_answer, NULL) == 0) pthread_detach(thread);
}
