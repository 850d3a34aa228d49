"""``cosci serve``: the web UI over a data folder, where a researcher watches, steers and judges sessions in a
browser (docs/web.md, design.md#web).

FastAPI with server-rendered Jinja2 pages, htmx and Server-Sent Events (the two scripts vendored in ``static/``: no
build step, nothing fetched from elsewhere). Built on the session service (:mod:`cosci.api`): a session started
here is prepared and pre-flighted once and run by :func:`cosci.api.run`; every control calls what the command line
calls, with the same one-line refusals. Modules: ``app`` (the application, the gate), ``common`` (state, rendering,
forms), ``pages`` and ``controls`` (the routes), ``views`` (what pages show), ``events`` (the event stream),
``launch`` (starting and resuming), ``security`` (token, cross-site check, upload cap, sanitiser), ``server``
(uvicorn). Importing this package loads no framework; ``app`` loads FastAPI.
"""
