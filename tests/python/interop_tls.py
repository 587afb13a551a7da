"""The grpcio client over TLS, mTLS and a bearer token (issue 15).

Usage: interop_tls.py PORT PROTO_ROOT OUT_DIR CA_PEM CLIENT_CERT CLIENT_KEY TOKEN

The server (tests/it/service_interop_python.rs) requires a client certificate
signed by its client CA and a bearer token. Solve and SuggestMove are checked
against the O(n^2) reference in interop.py; a call without the token must
fail UNAUTHENTICATED.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interop import check, spec_winning_moves  # noqa: E402


def main():
    port, proto_root, out_dir, ca, cert, key, token = sys.argv[1:8]
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
    from stonegame.v1 import stonegame_pb2 as pb
    from stonegame.v1 import stonegame_pb2_grpc as pb_grpc

    def read(p):
        with open(p, "rb") as f:
            return f.read()

    creds = grpc.ssl_channel_credentials(
        root_certificates=read(ca),
        private_key=read(key),
        certificate_chain=read(cert),
    )
    # The server's certificate names 127.0.0.1 and localhost.
    channel = grpc.secure_channel(
        "127.0.0.1:" + port,
        creds,
        options=[("grpc.ssl_target_name_override", "localhost")],
    )
    grpc.channel_ready_future(channel).result(timeout=30)
    stub = pb_grpc.StoneGameStub(channel)
    side_names = {pb.SIDE_LEFT: "left", pb.SIDE_RIGHT: "right"}
    md = [("authorization", "Bearer " + token)]

    rng = random.Random(15)
    rows = [[3, 1, 9, 4], [1, 1, 2, 2], [5, 3], [7]]
    for _ in range(60):
        rows.append([rng.randint(1, 10) for _ in range(rng.randint(1, 15))])
    cases = [pb.Case(id="r%d" % k, piles=row, variant=pb.VARIANT_TWO_ENDS) for k, row in enumerate(rows)]
    responses = list(stub.Solve(iter([pb.SolveRequest(cases=cases)]), timeout=60, metadata=md))
    results = [r for resp in responses for r in resp.results]
    check(len(results) == len(rows), "one result per case over TLS")
    wins = 0
    for k, (row, res) in enumerate(zip(rows, results)):
        check(res.id == "r%d" % k, "id/order of case %d: %s" % (k, res.id))
        want = bool(spec_winning_moves(row))
        wins += want
        check(res.first_player_wins == want, "verdict of %s over TLS" % row)
    check(0 < wins < len(rows), "both verdicts occur")

    for row in rows[:20]:
        r = stub.SuggestMove(pb.SuggestMoveRequest(piles=row, seed=1), timeout=30, metadata=md)
        got = [(side_names[m.side], m.remaining) for m in r.winning_moves]
        want = spec_winning_moves(row)
        check(got == want, "winning moves of %s over TLS: %s vs %s" % (row, got, want))

    # Without the token: UNAUTHENTICATED, over the same TLS channel.
    try:
        stub.SuggestMove(pb.SuggestMoveRequest(piles=[3, 1, 9, 4]), timeout=30)
        check(False, "a call without a token was served")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.UNAUTHENTICATED, "no token: %s" % e.code())
    # A wrong token: UNAUTHENTICATED too.
    try:
        stub.SuggestMove(
            pb.SuggestMoveRequest(piles=[3, 1, 9, 4]),
            timeout=30,
            metadata=[("authorization", "Bearer not-" + token)],
        )
        check(False, "a call with a wrong token was served")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.UNAUTHENTICATED, "wrong token: %s" % e.code())
    channel.close()
    print("interop tls OK: %d Solve cases, %d SuggestMove" % (len(rows), 20))


if __name__ == "__main__":
    main()
