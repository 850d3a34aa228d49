"""The Supervisor: bootstrap, the main loop, follow-up rules, idle refinement, termination (design.md#supervisor).

It schedules agents; it does not contain them. The loop runs each action through an injected runner, which
the Prefect flow (``flows/session.py``) binds to a cached, retried Prefect task.
"""
