import argparse

from factors import MILES_PER_KM

parser = argparse.ArgumentParser()
parser.add_argument("--km", type=float, required=True)
print(parser.parse_args().km * MILES_PER_KM)
