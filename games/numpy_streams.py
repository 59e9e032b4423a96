"""numpy's seeding, replayed for many integer seeds at once, as array operations.

Some chance (Gwent Lite's deals) is drawn from one `np.random.default_rng(seed)` per game; built one
seed at a time, those generators cost more than playing the game. `SeedStreams` computes the same
draws for all seeds together, and `streams_match_numpy()` checks once per process that they equal
numpy's own, so callers fall back to numpy's generators if a numpy version ever changed any of it.
Nothing here knows a game.
"""

from __future__ import annotations

import numpy as np

# `default_rng(seed)` for an integer seed is a SeedSequence hashing the seed into a PCG64 state; a
# game draws its leader with `integers(2)` (the top bit of the low half of the first output), its
# seat seeds with `integers(2**63, size=2)` (the next two outputs shifted right by one), and each
# seat's shuffle is `permutation(n)`: Fisher-Yates from the end, position i swapped with a value
# drawn by masked rejection from 32-bit halves of the outputs (low half first). Built one seed at a
# time, those generators cost more than playing the game; here they are array operations over all
# seeds, checked once per process against numpy itself (`streams_match_numpy`: if a numpy version
# ever changed any of it, deals fall back to numpy's own generators).

_U64 = np.uint64
_M32 = _U64(0xFFFFFFFF)
_PCG_MULT_HI, _PCG_MULT_LO = _U64(0x2360ED051FC65DA4), _U64(0x4385DF649FCCF645)
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = np.uint32(0xCA01F9DD), np.uint32(0x4973F715)


def _hash_constants(first: int, mult: int, count: int) -> list[tuple[np.uint32, np.uint32]]:
    """SeedSequence's hash constant before and after each multiplication (the same for every seed)."""
    out, h = [], first
    for _ in range(count):
        after = (h * mult) & 0xFFFFFFFF
        out.append((np.uint32(h), np.uint32(after)))
        h = after
    return out


_MIX_CONSTANTS = _hash_constants(_INIT_A, _MULT_A, 16)  # 4 words in, then 12 cross-mixes
_STATE_CONSTANTS = _hash_constants(_INIT_B, _MULT_B, 8)  # 8 words out (4 uint64)


def is_seed64(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) and 0 <= int(x) < 2**64


def _mulhi(x: np.ndarray, y) -> np.ndarray:
    """The high 64 bits of x * y (uint64), from 32-bit halves."""
    x0, x1, y0, y1 = x & _M32, x >> _U64(32), y & _M32, y >> _U64(32)
    p01, p10 = x0 * y1, x1 * y0
    mid = ((x0 * y0) >> _U64(32)) + (p01 & _M32) + (p10 & _M32)
    return x1 * y1 + (p01 >> _U64(32)) + (p10 >> _U64(32)) + (mid >> _U64(32))


class SeedStreams:
    """`np.random.default_rng(seed)` for many integer seeds (0 <= seed < 2**64), stepped together:
    PCG64 states as (hi, lo) uint64 pairs."""

    def __init__(self, seeds: np.ndarray):
        u32 = np.uint32
        words = [(seeds & _M32).astype(u32), (seeds >> _U64(32)).astype(u32)]
        constants = iter(_MIX_CONSTANTS)

        def hashmix(v):
            before, after = next(constants)
            v = (v ^ before) * after
            return v ^ (v >> u32(16))

        zero = np.zeros(seeds.shape, dtype=u32)  # a seed of one word hashes as (word, 0)
        pool = [hashmix(words[i] if i < 2 else zero) for i in range(4)]
        for src in range(4):
            for dst in range(4):
                if src != dst:
                    r = _MIX_L * pool[dst] - _MIX_R * hashmix(pool[src])
                    pool[dst] = r ^ (r >> u32(16))
        out = []
        for i, (before, after) in enumerate(_STATE_CONSTANTS):
            d = (pool[i % 4] ^ before) * after
            out.append((d ^ (d >> u32(16))).astype(np.uint64))
        w = [out[2 * k] | (out[2 * k + 1] << _U64(32)) for k in range(4)]
        # PCG64 seeding: inc = (w2:w3 << 1) | 1; state = ((0 * M + inc) + w0:w1) * M + inc
        self.inc_hi = (w[2] << _U64(1)) | (w[3] >> _U64(63))
        self.inc_lo = (w[3] << _U64(1)) | _U64(1)
        lo = self.inc_lo + w[1]
        hi = self.inc_hi + w[0] + (lo < w[1]).astype(np.uint64)
        hi, lo = _mul128(hi, lo, _PCG_MULT_HI, _PCG_MULT_LO)
        self.lo = lo + self.inc_lo
        self.hi = hi + self.inc_hi + (self.lo < lo).astype(np.uint64)

    def outputs(self, k: int) -> np.ndarray:
        """(streams, k): every stream's next k outputs (PCG64's XSL-RR of each stepped state),
        all at once: state_t = M**t * state + (M**(t-1) + ... + 1) * inc, for t = 1..k."""
        a_hi, a_lo, c_hi, c_lo = _jump_constants(k)
        hi, lo = _mul128(self.hi[:, None], self.lo[:, None], a_hi, a_lo)
        ci_hi, ci_lo = _mul128(self.inc_hi[:, None], self.inc_lo[:, None], c_hi, c_lo)
        lo = lo + ci_lo
        hi = hi + ci_hi + (lo < ci_lo).astype(np.uint64)
        self.hi, self.lo = hi[:, -1].copy(), lo[:, -1].copy()
        v, r = hi ^ lo, hi >> _U64(58)
        return (v >> r) | (v << ((_U64(64) - r) & _U64(63)))

    @classmethod
    def chance(cls, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(coins, seeds (n, 2)): what `rng.integers(2)` and then `rng.integers(2**63, size=2)` give
        for `rng = default_rng(seed)` (Gwent Lite's leader coin and seat seeds)."""
        unique, inverse = np.unique(seeds, return_inverse=True)  # a deal's two games share a seed
        x = cls(unique).outputs(3)
        leaders = ((x[:, 0] & _M32) >> _U64(31)).astype(np.int64)  # integers(2): a 32-bit draw's top bit
        seats = x[:, 1:] >> _U64(1)  # integers(2**63, size=2): 64-bit draws' top 63 bits
        return leaders[inverse.reshape(-1)], seats[inverse.reshape(-1)]

    @classmethod
    def permutations(cls, seeds: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """(len(seeds), max length): row r starts with default_rng(seeds[r]).permutation(lengths[r])."""
        streams = cls(seeds)
        g, width = seeds.shape[0], int(lengths.max())
        perm = np.tile(np.arange(width, dtype=np.int64), (g, 1))
        masks = np.array([(1 << i.bit_length()) - 1 for i in range(width)], dtype=np.uint64)
        at = lengths.astype(np.int64) - 1  # the position each row fills next (Fisher-Yates from the end)
        x = streams.outputs(width)
        halves = np.stack([x & _M32, x >> _U64(32)], axis=2).reshape(g, -1)  # 32-bit draws, low half first
        live = np.flatnonzero(at > 0)
        k = 0
        while live.size:  # draw k of every live row: random_interval's masked rejection
            if k == halves.shape[1]:
                x = streams.outputs(width)
                halves = np.concatenate([halves, np.stack([x & _M32, x >> _U64(32)], axis=2).reshape(g, -1)], axis=1)
            i = at[live]
            v = (halves[live, k] & masks[i]).astype(np.int64)
            ok = v <= i
            rows, i, j = live[ok], i[ok], v[ok]
            held = perm[rows, i]
            perm[rows, i] = perm[rows, j]
            perm[rows, j] = held
            at[rows] -= 1
            live = live[at[live] > 0]
            k += 1
        return perm


_JUMPS: dict[int, tuple] = {}


def _jump_constants(k: int) -> tuple:
    """(M**t, sum of M**s for s < t) mod 2**128 for t = 1..k, as (hi, lo) uint64 rows."""
    if k not in _JUMPS:
        mult = (int(_PCG_MULT_HI) << 64) | int(_PCG_MULT_LO)
        a, c, rows = 1, 0, []
        for _ in range(k):
            c = (c + a) % 2**128
            a = a * mult % 2**128
            rows.append((a >> 64, a & (2**64 - 1), c >> 64, c & (2**64 - 1)))
        _JUMPS[k] = tuple(np.array(col, dtype=np.uint64)[None, :] for col in zip(*rows))
    return _JUMPS[k]


def _mul128(a_hi, a_lo, b_hi, b_lo) -> tuple[np.ndarray, np.ndarray]:
    """a * b mod 2**128 on (hi, lo) uint64 pairs (broadcasting)."""
    return _mulhi(a_lo, b_lo) + a_lo * b_hi + a_hi * b_lo, a_lo * b_lo


_STREAMS_OK: bool | None = None


def streams_match_numpy() -> bool:
    """Whether `SeedStreams` draws exactly what this numpy draws (checked once per process)."""
    global _STREAMS_OK
    if _STREAMS_OK is None:
        seeds = np.array([0, 1, 2**32 - 1, 2**32 + 5, 2**63 + 12345, 2**64 - 1], dtype=np.uint64)
        leaders, seats = SeedStreams.chance(seeds)
        perms = SeedStreams.permutations(seats[:, 0], np.full(len(seeds), 25))
        ok = True
        for k, seed in enumerate(seeds.tolist()):
            rng = np.random.default_rng(seed)
            ok &= int(rng.integers(2)) == leaders[k] and rng.integers(2**63, size=2).tolist() == seats[k].tolist()
            ok &= np.random.default_rng(int(seats[k, 0])).permutation(25).tolist() == perms[k].tolist()
        _STREAMS_OK = bool(ok)
    return _STREAMS_OK


def shuffles(seat_seeds: np.ndarray, lengths: list[int]) -> np.ndarray:
    """(rows, max length): row r starts with default_rng(seat_seeds[r]).permutation(lengths[r])
    and goes on as the identity; each distinct (seed, length) drawn once (the mirrored games of
    a deal share them)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    width = int(lengths.max())
    if not streams_match_numpy():
        perms = np.tile(np.arange(width, dtype=np.int64), (len(lengths), 1))
        for r, (s, n) in enumerate(zip(seat_seeds.tolist(), lengths.tolist())):
            perms[r, :n] = np.random.default_rng(int(s)).permutation(n)
        return perms
    pairs = np.stack([seat_seeds, lengths.astype(np.uint64)], axis=1)
    unique, inverse = np.unique(pairs, axis=0, return_inverse=True)
    perms = SeedStreams.permutations(unique[:, 0], unique[:, 1].astype(np.int64))
    if perms.shape[1] < width:
        perms = np.concatenate([perms, np.tile(np.arange(perms.shape[1], width), (len(perms), 1))], axis=1)
    return perms[inverse.reshape(-1)]
