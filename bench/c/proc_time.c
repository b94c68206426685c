// SPDX-License-Identifier: MIT
/*
 * proc_time — runs a command and reports its wall time and the CPU time
 * (user + system, from wait4's rusage) of the whole process, its output
 * discarded: a `time` that prints one JSON line.
 *
 *   proc_time COMMAND [ARGS...]
 */
#include "bench_util.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: proc_time COMMAND [ARGS...]\n"); return 2; }
    uint64_t t0 = bench_now_ns();
    pid_t pid = fork();
    if (pid < 0) { perror("proc_time: fork"); return 1; }
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) { dup2(null, 1); close(null); }
        execvp(argv[1], argv + 1);
        perror("proc_time: exec");
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) { perror("proc_time: wait4"); return 1; }
    uint64_t t1 = bench_now_ns();
    double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    bench_json j;
    bench_json_begin(&j);
    bench_json_addf(&j, "process_ms", "%.3f", (double)(t1 - t0) / 1e6);
    bench_json_addf(&j, "process_cpu_ms", "%.3f", cpu);
    bench_json_addf(&j, "rc", "%d", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    bench_json_end(&j);
    return 0;
}
