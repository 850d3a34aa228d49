"""Names vulture cannot see used, because a framework (not cosci's code) calls or reads them.

vulture runs over ``cosci flows tests bench`` with this file at ``min_confidence = 60`` (every kind of finding:
functions, classes, methods, attributes, variables, imports, unreachable code; ``[tool.vulture]`` in
``pyproject.toml``). Pydantic validators and pytest fixtures are skipped by decorator there. Nothing here may
stand for code that cosci itself ought to call: dead code is deleted, not listed.
"""
# ruff: noqa
# fmt: off

# Pydantic: model settings.
_.model_config

# The record tools' fields (seed 003 schemas): the model fills them, the record keeps them as JSON; also the
# recorded OpenAI tool's fields in tests/llm/test_litellm_replay.py.
_.assumption
_.plausibility
_.min_year
_.max_year

# The drafting's record tools (cosci/investigation/draft_records.py): the model fills them; a design reaches
# design.json and the next prompts by model_dump, a draft's files are read by name through RecordTaskDraft.FILES.
_.score_metric
_.search_protocol
_.final_protocol
_.compute
_.task_md
_.rubrics_yaml
_.evaluate_search
_.evaluate_final

# An investigation's cycle result (cosci/investigation/cycle.py CycleResult): written to result.json by
# dataclasses.asdict and read back as dict keys by the flow, the boundary and the report.
_.candidate_dir
_.base_dir
_.evaluation
_.best_before
_.evaluations_used

# The model catalogue's facts kept as cited data (conf/catalogue/*.yaml, design.md#catalogue): validated, read by
# researchers and tests, not by the routing code.
_.output_cap
_.deprecated

# Config fields read by Hydra interpolation in conf/hydra/launcher/*.yaml, not by Python.
_.joblib
_.slurm
_.ray
_.n_jobs
_.timeout_min
_.cpus_per_task
_.mem_gb
_.num_cpus

# Hydra: the sweep callback (named in conf/config.yaml `hydra.callbacks`) and its hooks.
_.MlflowSweepCallback
_.on_multirun_start
_.on_job_start
_.on_multirun_end

# LiteLLM: CustomLLM's handler signature (called by keyword) and the sync entry point; a module global.
_.custom_prompt_dict
_.model_response
_.print_verbose
_.encoding
_.logging_obj
_.completion
_.suppress_debug_info

# sqlite3: the connection's row factory.
_.row_factory

# llama-cpp-python: LlamaRAMCache reads its own cache_size when it evicts (cosci/llm/local/state_cache.py).
_.cache_size
# llama-cpp-python: Llama.create_completion calls save_state to fill the prompt-state cache (PromptStateLlama).
_.save_state
# llama-cpp-python: Llama.create_completion calls load_state to restore a cached prompt state, and Llama.generate reads
# _requires_eval (it decodes at least one token after a restore; PromptStateLlama.load_state sets it).
_.load_state
_._requires_eval

# llama-cpp-python / llama.cpp read these: Llama.n_threads_batch (set with llama_set_n_threads, cosci/llm/local/model.py);
# the fields of llama_model_quantize_params that llama_model_quantize reads (cosci/llm/local/weights.py).
_.n_threads_batch
_.ftype
_.allow_requantize
_.nthread

# Jinja: fields read by cosci/report/templates/report.html.j2.
_.elo_before
_.elo_after
_.generated_at
_.relied_on  # a claim's support check (claims.json rows, shown in the report's "Claims" section)
_.support_note
_.claims_counts  # ReportData's claims line
_.researcher_agreement  # ReportData: the researcher-vs-tournament agreement line
_.overview_note  # ReportData: the note above an overview older than researcher inputs (design.md#report)
_.prior_search  # a hypothesis's novelty search line (report: "Nearest prior work" when none was kept)

# pytest: module marks and hooks.
_.pytestmark
_.pytest_configure

# pytest: a fixture a test requests by its parameter for what it starts, never reading the parameter (Prefect's test
# harness for the flows run in the test process, tests/conftest.py). tests/test_launchers.py had a module fixture
# of that name whose value it read, which hid the unread parameters from vulture.
prefect_server

# html.parser.HTMLParser and selenium: framework callbacks and options.
_.handle_starttag
_.binary_location

# http.server.BaseHTTPRequestHandler: the request callback and the log hook a test's local server overrides.
_.do_GET
_.do_POST
_.log_message

# tests/config/test_fields_read.py: fields declared never to be read, to show the schema-field test catches them.
_.never_read_anywhere_xyz
_.spare

# Objects a declaration names by reference (`build: package.module:name` in cosci/sandbox/sandboxes.yaml), imported
# with pkgutil.resolve_name when they are used (docs/design.md#plugins).
_.BACKEND

# the MCP SDK: `cosci mcp`'s tools, registered by decorator and called by the client (cosci/mcp_server.py).
_.start_session
_.get_leaderboard
_.get_hypothesis
_.pause
_.abort
_.follow_session
_.run_stdio_async  # the SDK's stdio loop, overridden by cosci/mcp_server.py's Server (MCPServer.run calls it)

# FastAPI: `cosci serve`'s routes and exception handlers, registered by decorator and called by the framework
# (cosci/web/app.py, pages.py, controls.py).
_.not_found
_.cosci_error
_.config_error
_.http_error
_.bad_query
_.check_new
_.start_new
_.sessions_page
_.new_page
_.run_state
_.session_page
_.live_fragment
_.leaderboard_fragment
_.event_stream
_.hypothesis_page
_.compare_page
_.overview_page
_.project_page

# The paper plan's record tool (cosci/investigation/paper_records.py): the model fills the thesis; the draft's prompt
# reads it as {{ plan.thesis }} (prompts/paper_write.md) and plan.json keeps it by model_dump.
_.thesis

# A module-level __getattr__ (PEP 562) that Python calls for a missing attribute: cosci/agents/__init__.py imports
# the agents' base when AgentDeps or BaseAgent is first asked for (design.md#startup).
__getattr__

# bench.model_speed.Speeds: written out through dataclasses.asdict as JSON and read back by bench.demo as a dict
# (the decode-only speeds and the deep-prompt speed, bench/README.md "The eighth stop").
_.generation_decode
_.grammar_decode
_.prompt_deep
# re2.Options: set on the options object RE2 reads when it compiles the term lists' guard (cosci/safety/guard.py).
_.case_sensitive
_.dot_nl
_.log_errors
_.max_mem
