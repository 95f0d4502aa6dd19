"""A torch peer that greets, then dies of SIGKILL at its first request, as a Python whose
torch crashes would: the driver must report it and start another next time."""
import os
import signal
import sys

sys.stdout.write('{"torch": "dying", "ready": true}\n')
sys.stdout.flush()
sys.stdin.buffer.readline()
os.kill(os.getpid(), signal.SIGKILL)
