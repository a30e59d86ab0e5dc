#!/usr/bin/python3
"""Runs a command under a Landlock sandbox (Linux 5.13+): the filesystem shrinks to the folders named
on the command line, and TCP is closed altogether where the kernel can do that (Landlock ABI 4+).

    sandbox.py --probe
        prints the kernel's Landlock ABI version (0: none) and exits 0.
    sandbox.py [--read DIR]... [--write DIR]... [--socket DIR]... -- COMMAND [ARG]...
        --read    DIR and below may be read and executed;
        --write   DIR and below may also be written, created and removed;
        --socket  Unix sockets may be created (and removed) in DIR, nothing else;
        everything else is refused by the kernel, for COMMAND and everything it starts.

Quire runs LibreOffice through this (src/engines/libreoffice/isolation.ts): a document that links a
file the converter cannot read cannot embed it, whichever code path in LibreOffice reads it (some
read files directly, past every setting and URL check). Missing folders are skipped. When the
sandbox cannot be set up, nothing runs: exit status 97 and a line on stderr. Standard library only,
no `uno` needed.
"""

import ctypes
import os
import signal
import sys

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446  # the same on every architecture
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
SANDBOX_FAILED = 97

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG = 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8
MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1


class RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64)]


class PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def fail(message):
    sys.stderr.write("sandbox.py: %s\n" % message)
    sys.exit(SANDBOX_FAILED)


def abi_version():
    version = libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(int(version), 0)


def handled_fs(abi):
    rights = (1 << 13) - 1  # ABI 1: EXECUTE .. MAKE_SYM
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV


def add_rule(ruleset, path, rights, handled):
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    except OSError as error:
        fail("cannot open %s: %s" % (path, error))
    try:
        allowed = rights & handled
        if not os.path.isdir(path):
            allowed &= FILE_RIGHTS
        attr = PathBeneathAttr(allowed, fd)
        if libc.syscall(SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(attr), ctypes.c_uint32(0)) != 0:
            fail("landlock_add_rule(%s): %s" % (path, os.strerror(ctypes.get_errno())))
    finally:
        os.close(fd)


def parse(argv):
    rules = {"--read": [], "--write": [], "--socket": []}
    index = 0
    while index < len(argv) and argv[index] != "--":
        option = argv[index]
        if option not in rules or index + 1 >= len(argv):
            fail("usage: sandbox.py [--read DIR]... [--write DIR]... [--socket DIR]... -- COMMAND [ARG]...")
        rules[option].append(argv[index + 1])
        index += 2
    command = argv[index + 1:]
    if not command:
        fail("no command given")
    return rules, command


def main():
    if sys.argv[1:] == ["--probe"]:
        print(abi_version())
        return
    rules, command = parse(sys.argv[1:])
    abi = abi_version()
    if abi < 1:
        fail("the kernel has no Landlock (Linux 5.13+ with landlock among the LSMs)")
    handled = handled_fs(abi)
    read = EXECUTE | READ_FILE | READ_DIR
    attr = RulesetAttr(handled, NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0)
    # ABI 1-3 know no handled_access_net: pass the first member only.
    size = ctypes.sizeof(RulesetAttr) if abi >= 4 else ctypes.sizeof(ctypes.c_uint64)
    ruleset = libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        fail("landlock_create_ruleset: %s" % os.strerror(ctypes.get_errno()))
    for path in rules["--read"]:
        add_rule(ruleset, path, read, handled)
    for path in rules["--write"]:
        add_rule(ruleset, path, handled, handled)
    for path in rules["--socket"]:
        add_rule(ruleset, path, MAKE_SOCK | REMOVE_FILE, handled)
    # No TCP rules: with ABI 4+ every bind and connect is refused (Unix sockets are not affected).
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        fail("prctl(PR_SET_NO_NEW_PRIVS): %s" % os.strerror(ctypes.get_errno()))
    if libc.syscall(SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
        fail("landlock_restrict_self: %s" % os.strerror(ctypes.get_errno()))
    os.close(ruleset)
    # COMMAND dies with whoever started us (the server, or uno_worker.py), however it dies; our
    # starter set that already, setting it here keeps it true whatever wrapper ran in between.
    # exec keeps it (soffice.bin is not set-uid).
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        fail("prctl(PR_SET_PDEATHSIG): %s" % os.strerror(ctypes.get_errno()))
    try:
        os.execvp(command[0], command)
    except OSError as error:
        fail("cannot run %s: %s" % (command[0], error))


if __name__ == "__main__":
    main()
