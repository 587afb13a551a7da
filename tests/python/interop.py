"""Interop check of the stonegame gRPC service with the Python grpcio stack.

Usage: interop.py PORT PROTO_ROOT OUT_DIR

Generates the Python stubs from our .proto with grpcio-tools into OUT_DIR,
then against 127.0.0.1:PORT: runs Solve (several batches on one stream, the
same rows as `piles` and as `piles_le`, invalid cases among valid ones) and
SuggestMove and checks the answers against an independent O(n^2)
implementation of docs/game.md §1 written here, and the remoteness
(want_remoteness) of two-pile rows against docs/game.md §5's formula and
of a row whose remoteness passes 2^64 - 1; checks
grpc.health.v1 (grpcio-health-checking); lists stonegame.v1.StoneGame
through server reflection (grpcio-reflection) and fetches its file; plays
whole games on the Play stream (a bidirectional stream fed from a queue):
the client takes the first seat on won rows with analysis on, checks each
GameState's winning moves against the O(n^2) implementation here, plays
the first of them until the GameOver names it the winner, and has one bad
move of each of two kinds refused (MoveRejected) on the way.
Exits non-zero with a message on the first failure.
"""

import functools
import random
import struct
import sys


def spec_tables(a):
    """left[i][j], right[i][j] (0-based) by the recurrence of docs/game.md §1."""
    n = len(a)
    left = [[0] * n for _ in range(n)]
    right = [[0] * n for _ in range(n)]
    for i in range(n):
        left[i][i] = right[i][i] = a[i]
    for length in range(2, n + 1):
        for i in range(0, n - length + 1):
            j = i + length - 1
            L, R, X = left[i][j - 1], right[i][j - 1], a[j]
            if X == R:
                v = 0
            elif X < R and X < L:
                v = X
            elif X < R:
                v = X + 1
            elif X > L:
                v = X
            else:
                v = X - 1
            left[i][j] = v
            L, R, X = left[i + 1][j], right[i + 1][j], a[i]
            if X == L:
                v = 0
            elif X < L and X < R:
                v = X
            elif X < L:
                v = X + 1
            elif X > R:
                v = X
            else:
                v = X - 1
            right[i][j] = v
    return left, right


@functools.lru_cache(maxsize=None)
def spec_remoteness(piles):
    """Remoteness by the game tree (docs/game.md §5): 0 for the empty row; a
    lost position 1 + its children's largest, a won one 1 + the smallest of
    its children that are lost for the player then to move (even)."""
    if not piles:
        return 0
    children = []
    sides = (0, 1) if len(piles) > 1 else (0,)
    for side in sides:
        pile = piles[0] if side == 0 else piles[-1]
        for left in range(pile):
            kept = (left,) if left else ()
            children.append(
                spec_remoteness(kept + piles[1:] if side == 0 else piles[:-1] + kept)
            )
    lost = [r for r in children if r % 2 == 0]
    return 1 + (min(lost) if lost else max(children))


def spec_winning_moves(a):
    """Winning moves as (side, remaining) pairs, left first."""
    n = len(a)
    if n == 1:
        return [("left", 0)]
    left, right = spec_tables(a)
    out = []
    if left[1][n - 1] < a[0]:
        out.append(("left", left[1][n - 1]))
    if right[0][n - 2] < a[-1]:
        out.append(("right", right[0][n - 2]))
    return out


def play_game(pb, stub, row, seed, bad_moves, names):
    """Plays `row` in the first seat with analysis on, always the first
    winning move; with `bad_moves`, first a take of too many stones and a
    move for a stale ply, both refused. Returns the MoveRejected count."""
    import queue

    requests = queue.Queue()

    def feed():
        while True:
            item = requests.get()
            if item is None:
                return
            yield item

    def submit(state, side, take, ply=None):
        move = pb.Move(side=side, take=take)
        ply = state.ply if ply is None else ply
        requests.put(pb.PlayRequest(move=pb.SubmitMove(ply=ply, move=move)))

    start = pb.StartGame(
        piles=row, client_seat=pb.SEAT_FIRST, analysis=True, seed=seed
    )
    requests.put(pb.PlayRequest(start=start))
    bad = ["too_many", "stale"] if bad_moves else []
    rejected = 0
    state = None
    over = None
    for event in stub.Play(feed(), timeout=60):
        kind = event.WhichOneof("event")
        if kind == "over":
            over = event.over
            requests.put(None)
            continue
        check(over is None, "no event after the GameOver")
        if kind == "rejected":
            rejected += 1
            r = event.rejected
            want = {
                "too_many": pb.REJECT_REASON_TAKE_TOO_MANY,
                "stale": pb.REJECT_REASON_STALE_PLY,
            }[bad.pop(0)]
            check(r.reason == want, "reject reason %d, not %d: %s" % (r.reason, want, r.message))
            check(r.expected_ply == state.ply, "expected ply %d" % r.expected_ply)
        else:
            state = event.state
            if state.left_size == 0 or state.to_move != pb.SEAT_FIRST:
                continue
            # The live row: the original piles first..last, ends replaced.
            live = list(row[state.first_pile : state.last_pile + 1])
            live[0] = state.left_size
            live[-1] = state.right_size
            want = spec_winning_moves(live)
            got = [(names[m.side], m.remaining) for m in state.winning_moves]
            check(got == want, "winning moves of %s at ply %d: %s vs %s" % (live, state.ply, got, want))
            check(state.mover_wins and want, "the client keeps a won game at ply %d" % state.ply)
            check(len(state.state_token) <= 128, "token length %d" % len(state.state_token))
        if bad:
            if bad[0] == "too_many":
                submit(state, pb.SIDE_LEFT, state.left_size + 1)
            else:
                submit(state, pb.SIDE_LEFT, 1, ply=state.ply + 2)
            continue
        m = state.winning_moves[0]
        submit(state, m.side, m.take)
    check(over is not None, "the game on %s ended with a GameOver" % row)
    check(over.winner == pb.SEAT_FIRST, "the client won %s: %s" % (row, over))
    check(over.reason == pb.END_REASON_NO_MOVES, "by taking the last pile: %s" % over)
    check(state is not None and over.plies == state.ply, "plies %d" % over.plies)
    return rejected


def check(cond, what):
    if not cond:
        print("FAILED: " + what, file=sys.stderr)
        sys.exit(1)


def main():
    port, proto_root, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    from grpc_tools import protoc

    rc = protoc.main(
        [
            "grpc_tools.protoc",
            "-I" + proto_root,
            "--python_out=" + out_dir,
            "--grpc_python_out=" + out_dir,
            "stonegame/v1/stonegame.proto",
        ]
    )
    check(rc == 0, "protoc failed with %d" % rc)
    sys.path.insert(0, out_dir)

    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
    from stonegame.v1 import stonegame_pb2 as pb
    from stonegame.v1 import stonegame_pb2_grpc as pb_grpc

    channel = grpc.insecure_channel("127.0.0.1:" + port)
    grpc.channel_ready_future(channel).result(timeout=30)
    stub = pb_grpc.StoneGameStub(channel)
    side_names = {pb.SIDE_LEFT: "left", pb.SIDE_RIGHT: "right"}

    # Solve: known answers, random rows against the O(n^2) DP, planted losses.
    rng = random.Random(5)
    rows = [[3, 1, 9, 4], [1, 1, 2, 2], [5, 3], [7]]
    for _ in range(300):
        n = rng.randint(1, 25)
        rows.append([rng.randint(1, rng.choice([3, 10, 10**9])) for _ in range(n)])
    for _ in range(100):
        tail = [rng.randint(1, 10) for _ in range(rng.randint(1, 20))]
        t = spec_tables(tail)[0][0][len(tail) - 1]
        if t >= 1:
            rows.append([t] + tail)
    batches = []
    for start in range(0, len(rows), 40):
        cases = [
            pb.Case(id="r%d" % k, piles=rows[k], variant=pb.VARIANT_TWO_ENDS)
            for k in range(start, min(start + 40, len(rows)))
        ]
        batches.append(pb.SolveRequest(cases=cases))
    # The same rows again as piles_le: little-endian 8-byte words (width
    # left at 0) for even k, 4-byte words (piles_le_width = 4) for odd k.
    def pack_le(k, row):
        if k % 2 == 1 and max(row) < 2**32:
            data = struct.pack("<%dI" % len(row), *row)
            return pb.Case(id="le%d" % k, piles_le=data, piles_le_width=4)
        return pb.Case(id="le%d" % k, piles_le=struct.pack("<%dQ" % len(row), *row))

    packed = [pack_le(k, row) for k, row in enumerate(rows)]
    check(
        sum(c.piles_le_width == 4 for c in packed) >= len(rows) // 3,
        "a third of the piles_le rows go as 4-byte words",
    )
    for start in range(0, len(packed), 40):
        batches.append(pb.SolveRequest(cases=packed[start : start + 40]))
    le_batches = len(batches) - (len(rows) + 39) // 40
    batches.append(
        pb.SolveRequest(
            cases=[
                pb.Case(id="good", piles=[2, 2]),
                pb.Case(id="bad", piles=[1, 0, 1]),
                pb.Case(id="good2", piles=[2]),
                pb.Case(id="both", piles=[1, 2], piles_le=struct.pack("<2Q", 1, 2)),
                pb.Case(id="odd", piles_le=b"\x01" * 13),
                pb.Case(id="le-zero", piles_le=struct.pack("<3Q", 1, 0, 1)),
                pb.Case(id="wide", piles_le=struct.pack("<2Q", 1, 2), piles_le_width=9),
                pb.Case(id="u16", piles_le=struct.pack("<4H", 3, 1, 9, 4), piles_le_width=2),
            ]
        )
    )
    responses = list(stub.Solve(iter(batches), timeout=60))
    check(len(responses) == len(batches), "one response per request")
    plain = responses[: len(responses) - 1 - le_batches]
    as_le = responses[len(responses) - 1 - le_batches : -1]
    results = [r for resp in plain for r in resp.results]
    le_results = [r for resp in as_le for r in resp.results]
    check(len(le_results) == len(rows), "one result per piles_le case")
    for k, (res, le) in enumerate(zip(results, le_results)):
        check(le.id == "le%d" % k, "id/order of piles_le case %d: %s" % (k, le.id))
        check(not le.HasField("error"), "piles_le case %d: %s" % (k, le.error))
        check(
            (le.first_player_wins, le.best_move) == (res.first_player_wins, res.best_move),
            "piles_le and piles agree on %s" % rows[k],
        )
    check(len(results) == len(rows), "one result per case")
    losses = 0
    for k, (row, res) in enumerate(zip(rows, results)):
        check(res.id == "r%d" % k, "id/order of case %d: %s" % (k, res.id))
        moves = spec_winning_moves(row)
        want = bool(moves)
        losses += not want
        check(res.first_player_wins == want, "verdict of %s" % row)
        if want:
            got = (side_names[res.best_move.side], res.best_move.remaining)
            check(got in moves, "best move of %s: %s" % (row, got))
    check(losses >= 90, "planted losses: %d" % losses)
    last = responses[-1].results
    check(
        [r.id for r in last]
        == ["good", "bad", "good2", "both", "odd", "le-zero", "wide", "u16"],
        "ids of the mixed batch",
    )
    check(not last[0].first_player_wins and last[2].first_player_wins, "neighbours")
    check(last[1].HasField("error"), "the invalid case has an error")
    check(last[1].error.code == pb.CASE_ERROR_CODE_ZERO_PILE, "error code")
    check(last[1].error.pile_index == 2 and last[1].error.field == "piles", "error place")
    check(last[3].error.code == pb.CASE_ERROR_CODE_BOTH_PILE_FIELDS, "both fields set")
    check(last[4].error.code == pb.CASE_ERROR_CODE_PILES_LE_LENGTH, "13 bytes")
    check("13 bytes" in last[4].error.message, "length named: %s" % last[4].error.message)
    check(last[5].error.code == pb.CASE_ERROR_CODE_ZERO_PILE, "piles_le zero pile")
    check(
        last[5].error.pile_index == 2 and last[5].error.field == "piles_le",
        "piles_le error place",
    )
    check(last[6].error.code == pb.CASE_ERROR_CODE_PILES_LE_WIDTH, "width 9")
    check(last[6].error.field == "piles_le_width", "width error place")
    check(not last[7].HasField("error") and not last[7].first_player_wins, "3 1 9 4 as u16")

    # SuggestMove.
    r = stub.SuggestMove(pb.SuggestMoveRequest(piles=[3, 1, 9, 4]), timeout=30)
    check(not r.mover_wins, "3 1 9 4 is lost")
    # The perfect bot resists longest: its move leaves the position one ply
    # shorter than the row's remoteness (by this script's game tree).
    row = (3, 1, 9, 4)
    if r.chosen.side == pb.SIDE_LEFT:
        left = (r.chosen.remaining,) if r.chosen.remaining else ()
        child = left + row[1:]
    else:
        right = (r.chosen.remaining,) if r.chosen.remaining else ()
        child = row[:-1] + right
    check(
        r.chosen.take >= 1 and spec_remoteness(child) == spec_remoteness(row) - 1,
        "bot move in 3 1 9 4: %s leaves %s" % (r.chosen, child),
    )
    for row in rows[:60]:
        r = stub.SuggestMove(pb.SuggestMoveRequest(piles=row, seed=1), timeout=30)
        want = spec_winning_moves(row)
        got = [(side_names[m.side], m.remaining) for m in r.winning_moves]
        check(got == want, "winning moves of %s: %s vs %s" % (row, got, want))
        check(r.mover_wins == bool(want), "mover_wins of %s" % row)
    # The remoteness (docs/game.md §5), a decimal string of plies: two
    # piles last 2a plies when equal, else 1 + 2 min(a, b); the chosen
    # (optimal) move leaves one ply less.
    for a, b in [(1, 2), (5, 5), (7, 3), (2**63 - 1, 2**63 - 1)]:
        req = pb.SuggestMoveRequest(piles=[a, b], want_remoteness=True)
        r = stub.SuggestMove(req, timeout=30)
        want = 2 * a if a == b else 1 + 2 * min(a, b)
        check(int(r.remoteness.plies) == want, "remoteness of %d %d: %s" % (a, b, r.remoteness))
        after = int(r.chosen.remoteness_after.plies)
        check(after == want - 1, "remoteness after %s: %d" % (r.chosen, after))
        check(len(r.move_ranges) > 0 and r.move_ranges[0].mover_wins == r.mover_wins,
              "move ranges of %d %d: %s" % (a, b, r.move_ranges))
    # Past 2^64 - 1, exactly (the value the Rust core gives; its parity is
    # the verdict).
    big = 2**63 - 1
    row = [big, big - 1, big - 2, big - 3, big - 4, big]
    r = stub.SuggestMove(pb.SuggestMoveRequest(piles=row, want_remoteness=True), timeout=30)
    plies = int(r.remoteness.plies)
    check(plies == 18446744073709551620 and plies > 2**64 - 1, "big remoteness: %d" % plies)
    check((plies % 2 == 1) == r.mover_wins, "big remoteness parity")
    try:
        stub.SuggestMove(pb.SuggestMoveRequest(piles=[]), timeout=30)
        check(False, "an empty row must fail")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.FAILED_PRECONDITION, "empty row: %s" % e.code())
    try:
        stub.SuggestMove(pb.SuggestMoveRequest(piles=[1], strength=2.0), timeout=30)
        check(False, "strength 2 must fail")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.INVALID_ARGUMENT, "strength: %s" % e.code())

    # Play: whole games, the client playing the winning moves.
    won = [row for row in rows[:60] if spec_winning_moves(row)][:6]
    check(len(won) >= 3, "won rows: %d" % len(won))
    total_rejected = 0
    for k, row in enumerate(won):
        total_rejected += play_game(pb, stub, row, seed=k, bad_moves=(k == 0), names=side_names)
    check(total_rejected == 2, "rejected moves: %d" % total_rejected)

    # Health.
    health = health_pb2_grpc.HealthStub(channel)
    for service in ["", "stonegame.v1.StoneGame"]:
        h = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=30)
        check(h.status == health_pb2.HealthCheckResponse.SERVING, "health of %r" % service)

    # Reflection (v1alpha, which every grpcio-reflection has).
    refl = reflection_pb2_grpc.ServerReflectionStub(channel)
    answers = list(
        refl.ServerReflectionInfo(
            iter(
                [
                    reflection_pb2.ServerReflectionRequest(list_services=""),
                    reflection_pb2.ServerReflectionRequest(
                        file_containing_symbol="stonegame.v1.StoneGame"
                    ),
                ]
            ),
            timeout=30,
        )
    )
    names = [s.name for s in answers[0].list_services_response.service]
    check("stonegame.v1.StoneGame" in names, "reflection lists %s" % names)
    files = answers[1].file_descriptor_response.file_descriptor_proto
    check(len(files) >= 1, "reflection returns the file of stonegame.v1.StoneGame")
    print(
        "interop OK: %d cases (and as piles_le), %d losses, %d Play games won, services %s"
        % (len(rows), losses, len(won), names)
    )


if __name__ == "__main__":
    main()
