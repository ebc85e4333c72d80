#!/bin/sh
# registry guard used by the spawn fixtures; never started by them
exit 0
