import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # dedup_synth, shared with the CLI and Spark tests
