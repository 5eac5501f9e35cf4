"""The truthing API: tests (admins), the operator queue and its work (operators), adjudication
(reviewers). One thin view per operation; accounts/roles.py says who may call each."""
