"""glibc's allocator kept from hoarding the embedded model's freed buffers (design.md#local): :class:`Malloc`,
used by :mod:`.model` around every call."""

from __future__ import annotations

import ctypes
from typing import Any

M_MMAP_THRESHOLD, M_ARENA_MAX = -3, -8
"""glibc ``mallopt`` parameters (malloc.h)."""
MMAP_THRESHOLD_BYTES = 1 << 20
"""Allocations of at least this size get their own mapping, returned to the system when freed (see :class:`Malloc`)."""
MALLOC_ARENAS = 2
"""glibc malloc arenas at most (its default on 2 cores: 16)."""


class Malloc:
    """glibc's allocator kept from hoarding the embedded model's freed buffers (design.md#local).

    Every call saves a prompt state: llama-cpp-python copies the llama.cpp state three times and the 48 MiB logits
    buffer once, in whichever worker thread ran the call, and frees them at once. glibc's adaptive mmap threshold
    rises to the largest freed block (up to 32 MiB), so later copies of that size land in the worker thread's own
    arena (16 of them on 2 cores), where freed memory stays resident: measured on the demo, five arenas held about
    60 MB each and the heap 210 MB after 16 calls. A fixed threshold (:data:`MMAP_THRESHOLD_BYTES`, which also turns
    the adaptive one off), two arenas and ``malloc_trim`` after each call give it back. Not glibc (no ``libc.so.6``,
    or no ``malloc_trim``): nothing is done.
    """

    def __init__(self) -> None:
        try:
            self.libc: Any = ctypes.CDLL("libc.so.6")
            self.libc.malloc_trim  # noqa: B018 - glibc only: raises AttributeError elsewhere
        except (OSError, AttributeError):
            self.libc = None

    def tune(self) -> None:
        if self.libc is not None:
            self.libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
            self.libc.mallopt(M_ARENA_MAX, MALLOC_ARENAS)

    def trim(self) -> None:
        if self.libc is not None:
            self.libc.malloc_trim(0)
