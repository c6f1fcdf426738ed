#!/usr/bin/env python3
"""Runs a command under a pseudo-terminal, as a person at a terminal would.

usage: pty-run.py STEPS_JSON COLUMNS -- COMMAND [ARGS...]

STEPS_JSON is a list of {"wait": REGEX, "send": TEXT}: once the output since the
previous step matches REGEX, TEXT is typed (e.g. "\u0003" is Ctrl-C). Everything the
command writes goes to our stdout unchanged; our exit code is the command's.
Used by test/cli because node-pty is not available.
"""
import fcntl
import json
import os
import pty
import re
import select
import struct
import sys
import termios
import time

TIMEOUT_S = 120


def main() -> int:
    steps = json.loads(sys.argv[1])
    columns = int(sys.argv[2])
    command = sys.argv[sys.argv.index("--") + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, columns, 0, 0))
    seen = b""
    start = 0
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal (it exited)
                break
            if not chunk:
                break
            seen += chunk
            sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.flush()
        if steps:
            match = re.search(steps[0]["wait"], seen[start:].decode("utf-8", "replace"))
            if match:
                start = len(seen)
                os.write(fd, steps.pop(0)["send"].encode("utf-8"))
    else:
        os.kill(pid, 9)
        sys.stderr.write("pty-run: timed out\n")
    _, status = os.waitpid(pid, 0)
    if steps:
        sys.stderr.write("pty-run: steps never matched: %s\n" % json.dumps(steps))
        return 99
    return os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8


if __name__ == "__main__":
    sys.exit(main())
