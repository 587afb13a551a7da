# Wrong answer (stonegame problem package, interactive): breaks the
# protocol. It answers the first game's piles with a sentence instead of
# FIRST or SECOND.
import sys

sys.stdin.readline()
sys.stdin.readline()
sys.stdin.readline()
sys.stdout.write("I would like to go first, please\n")
sys.stdout.flush()
