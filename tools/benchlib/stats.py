"""Percentiles and medians of the benchmark samples."""
import statistics


def p95(samples):
    """The 95th percentile of ``samples`` (nearest rank)."""
    samples = sorted(samples)
    return samples[min(len(samples) - 1, int(round(0.95 * len(samples))) - 1)]


def median(samples):
    return statistics.median(samples)


def median_of_tuples(tuples):
    """The element-wise median of equal-length tuples (None skipped), or
    None when there are none."""
    tuples = [t for t in tuples if t is not None]
    if not tuples:
        return None
    return tuple(statistics.median(t[i] for t in tuples)
                 for i in range(len(tuples[0])))
