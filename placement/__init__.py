"""placement: a drop-in implementation of the OpenStack Placement API."""
