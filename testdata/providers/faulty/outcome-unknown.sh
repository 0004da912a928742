#!/bin/sh
# Reads one request and exits without answering, with the status that
# says it cannot tell whether the operation took effect
# (schema.OutcomeUnknownExitStatus), as pier's Terraform bridge does when
# ApplyResourceChange gets no response.
read -r request
echo "faulty: outcome unknown: the backend's connection broke mid-create" >&2
exit 75
