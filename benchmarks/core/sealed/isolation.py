"""Keeping the sealed agent out of the referee's memory, which holds the true state and the run's secret key.

On Linux a process may read (and write) another's memory through ``/proc/PID/mem`` (or ``ptrace``,
``process_vm_readv``; ``/proc/PID/environ`` and ``maps`` likewise) when it runs as the same user and the target
is *dumpable*, or when it has ``CAP_SYS_PTRACE``, which every root process has and which ignores dumpable.
Without the Yama security module, a child may do so to its parent. Hence, in one place:

- :func:`refuse_tracing`, called when the referee module is imported, so in every process that draws the key,
  plays a deal or starts a host: ``prctl(PR_SET_DUMPABLE, 0)``, which stops a child of the same user;
- :func:`unprivileged`, run by the host before it reads its first message (before any code of the agent's):
  started as root, it becomes ``nobody`` (uid and gid 65534, no groups), a user other than the referee's, with
  no capabilities; in any case no setuid program gives it privileges back. Started as ``nobody`` by
  ``subprocess`` (``user=``) it could not even run where Python is installed in a folder only root may enter
  (a pyenv in root's home, mode 0700): so the host drops root itself, after making the folders it needs reachable
  in a mount namespace of its own (:func:`_reach`);
- :func:`unreadable`, for the referee: the first folder or file of the agent's code that ``nobody`` cannot read,
  so that an agent it cannot load is refused with the path named, never run as root instead.
"""

from __future__ import annotations

import ctypes
import os
import stat
import sys
from pathlib import Path

NOBODY = 65534
PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 4, 38
CLONE_NEWNS = 0x20000
MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 4096, 16384, 1 << 18


def _libc(name: str, *args) -> None:
    """Call the C library's ``name``; OSError naming it when it fails."""
    if getattr(ctypes.CDLL(None, use_errno=True), name)(*args) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{name}: {os.strerror(error)}")


def refuse_tracing() -> None:
    """Make this process non-dumpable: a process of the same user without ``CAP_SYS_PTRACE`` can then neither
    open its ``/proc/PID/mem``, ``environ`` or ``maps`` nor trace it (nor can a debugger or profiler of that
    user, nor is a core dump written). Elsewhere than Linux this does nothing: there is no ``prctl``, and the
    sealed referee, which reads ``/proc``, runs on Linux only anyway."""
    if sys.platform == "linux":
        _libc("prctl", *map(ctypes.c_ulong, (PR_SET_DUMPABLE, 0, 0, 0, 0)))


def _blocked(paths: list[Path]) -> dict[Path, set[str]]:
    """The folders on the way to ``paths`` (folders, resolved) that others may not enter, each with the entries
    below it on the way; OSError when one of ``paths`` itself may not be entered and read by others."""
    blocked: dict[Path, set[str]] = {}
    for path in paths:
        if os.stat(path).st_mode & (stat.S_IROTH | stat.S_IXOTH) != stat.S_IROTH | stat.S_IXOTH:
            raise OSError(f"nobody (uid {NOBODY}) cannot read {path}, which the sealed host needs")
        way = [*reversed(path.parents), path]
        for folder, below in zip(way, way[1:]):
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                blocked.setdefault(folder, set()).add(below.name)
    return blocked


def _reach(paths: list[Path]) -> None:
    """Let ``nobody`` reach ``paths`` in this process's view of the file system only: each folder on the way
    that others may not enter is covered, in a mount namespace of this process's own (made private first, so
    nothing is seen outside it), by an empty tmpfs that anyone may enter, and the entries on the way are bound
    back into it; the rest of that folder (root's home, say) is out of the agent's sight."""
    blocked = _blocked(paths)
    if not blocked:
        return
    if sys.platform != "linux":
        raise OSError(f"nobody (uid {NOBODY}) cannot enter {min(blocked)}, and only Linux can make it reachable")
    _libc("unshare", CLONE_NEWNS)
    _libc("mount", None, b"/", None, ctypes.c_ulong(MS_REC | MS_PRIVATE), None)
    # Opened in the new namespace (a bind from another's mount is refused), before anything is covered.
    entries = {folder / name: os.open(folder / name, os.O_PATH) for folder in blocked for name in blocked[folder]}
    for folder in sorted(blocked, key=lambda f: len(f.parts)):  # outer folders first
        _libc("mount", b"tmpfs", bytes(folder), b"tmpfs", ctypes.c_ulong(MS_NOSUID | MS_NODEV), b"mode=755,size=64k")
        for name in sorted(blocked[folder]):
            os.mkdir(folder / name)
            source = f"/proc/self/fd/{entries[folder / name]}".encode()
            _libc("mount", source, bytes(folder / name), None, ctypes.c_ulong(MS_BIND | MS_REC), None)
    for descriptor in entries.values():
        os.close(descriptor)


def unprivileged(needed: list[Path]) -> None:
    """Give up every privilege a child of the referee could use to read it. Running as root: become ``nobody``
    with the folders ``needed`` (the interpreter's, the libraries', the project's) still reachable. Then, on
    Linux, set no-new-privileges, so that no setuid program (``sudo`` with a cached password, ``su``) nor file
    capability gives a privilege back. OSError when it cannot (uid 65534 unusable, as in a user namespace that
    does not map it, or no mount namespace allowed where one is needed)."""
    if os.geteuid() == 0:
        _reach(sorted({Path(path).resolve() for path in needed}))
        os.setgroups([])
        os.setgid(NOBODY)  # as root: the real, effective and saved ids alike
        os.setuid(NOBODY)  # which also clears every capability
        if {os.getuid(), os.geteuid(), os.getgid(), os.getegid()} != {NOBODY}:
            raise OSError(f"still running as uid {os.geteuid()} after becoming nobody")
    if sys.platform == "linux":
        _libc("prctl", *map(ctypes.c_ulong, (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)))


def uids(pid: int) -> set[int]:
    """The real, effective, saved and file-system uids of process ``pid``, from ``/proc/PID/status``."""
    with open(f"/proc/{pid}/status") as f:
        line = next(line for line in f if line.startswith("Uid:"))
    return {int(uid) for uid in line.split()[1:]}


def unreadable(path: Path) -> Path | None:
    """The first of ``path``'s folders that others may not enter, else ``path`` if others may not read it, else
    None: what ``nobody`` cannot load (read from the permission bits for others; ACLs are not consulted)."""
    path = path.resolve()
    for folder in reversed(path.parents):
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return folder
    return None if os.stat(path).st_mode & stat.S_IROTH else path
