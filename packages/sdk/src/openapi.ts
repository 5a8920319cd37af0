/**
 * Types of Trellis's REST API, generated from its OpenAPI document (packages/api/src/rest) by
 * `npm run generate:sdk --workspace @trellis/api`. Do not edit: regenerate.
 */
export interface paths {
    "/api/v1/meshes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every saved mesh with its latest version, most recently changed first. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The meshes. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["MeshRow"][];
                        };
                    };
                };
                401: components["responses"]["Error401"];
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/meshes/{id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A mesh's saved versions, oldest first. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Mesh id. */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The mesh and its versions. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: string;
                            name: string;
                            latestVersion: number;
                            versions: {
                                version: number;
                                /**
                                 * @description ISO 8601 time.
                                 * @example 2026-12-01T19:30:00.000Z
                                 */
                                createdAt: string;
                                createdBy: string | null;
                            }[];
                        };
                    };
                };
                401: components["responses"]["Error401"];
                /** @description No such mesh. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/meshes/{id}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a run of a mesh's latest version (or ?version=n) on a document or a JSON object.
         * @description The same key in `Idempotency-Key` returns the same run (`reused: true`) instead of starting another; a key is scoped to its caller and reused with a different request is refused (409 `idempotency_key_reused`).
         */
        post: {
            parameters: {
                query?: {
                    /** @description Mesh version; default the latest. */
                    version?: number;
                };
                header?: {
                    /** @description The file name, URL-encoded, when the body is raw bytes. */
                    "x-file-name"?: string;
                    /** @description Retry-safe start: the same key returns the same run (IETF httpapi Idempotency-Key draft). */
                    "idempotency-key"?: string;
                };
                path: {
                    /** @description Mesh id. */
                    id: string;
                };
                cookie?: never;
            };
            /** @description `application/json`: a JSON object sent to the head as its payload. Anything else: the document's bytes (file name in `x-file-name`), or form data with a `file` field. */
            requestBody: {
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                    "application/octet-stream": string;
                    "multipart/form-data": {
                        file: string;
                    };
                };
            };
            responses: {
                /** @description Started (or, for a reused key, the run started before). */
                201: {
                    headers: {
                        /** @description The run page, `/runs/<runId>`. */
                        Location: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["StartedRun"];
                    };
                };
                /** @description The input was refused (`input_rejected`) or the mesh has findings (`mesh_invalid`, listed). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                401: components["responses"]["Error401"];
                /** @description Refused by the role policy (starting runs needs designer, operator or admin; a token needs scope "run"). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such mesh or version. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                409: components["responses"]["Error409"];
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Runs with the Runs tab filters, search, sorts and paging. */
        get: {
            parameters: {
                query?: {
                    meshId?: string;
                    status?: "queued" | "running" | "done" | "failed" | "stalled" | "cancelled";
                    cause?: "message_lost" | "outcome_unreadable" | "step_code_failed" | "input_rejected" | "content_refused" | "budget_spent" | "agent_or_model_missing" | "timed_out" | "rate_limited" | "capacity_wait_exceeded" | "no_worker" | "stalled";
                    severity?: "critical" | "project" | "capacity";
                    /** @description Created at or after (ISO 8601). */
                    from?: string;
                    /** @description Created before (ISO 8601). */
                    to?: string;
                    /** @description A run id prefix or an input name prefix. */
                    search?: string;
                    sort?: "started" | "ended" | "duration" | "status";
                    direction?: "asc" | "desc";
                    limit?: number;
                    offset?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description One page and the total that matches. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["RunRow"][];
                            total: number;
                        };
                    };
                };
                /** @description A malformed filter (named). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                401: components["responses"]["Error401"];
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A run's answer: status, cause, counts and output (optionally waiting for the end). */
        get: {
            parameters: {
                query?: {
                    /** @description Wait up to this many seconds (0–60) for the run to end before answering; check `ended`. */
                    wait?: number;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The run as it stands (or as it ended). */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["RunAnswer"];
                    };
                };
                /** @description A malformed `wait`. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                401: components["responses"]["Error401"];
                404: components["responses"]["Error404"];
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a run: its running steps stop wherever they run; it ends `cancelled`. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        reason?: string;
                    };
                };
            };
            responses: {
                /** @description Cancelled, with its child runs and how many messages were set aside. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            runId: string;
                            /** @constant */
                            status: "cancelled";
                            runs: string[];
                            messages: number;
                        };
                    };
                };
                401: components["responses"]["Error401"];
                403: components["responses"]["Error403"];
                404: components["responses"]["Error404"];
                409: components["responses"]["Error409b"];
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}/reopen": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Re-open a failed or stalled run from its failed step, on its own version or the latest. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /**
                         * @default pinned
                         * @enum {string}
                         */
                        version?: "pinned" | "latest";
                    };
                };
            };
            responses: {
                /** @description Re-opened: the attempt number, the version used and the members re-published from. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            runId: string;
                            attempt: number;
                            fromVersion: number;
                            toVersion: number;
                            members: string[];
                            messages: number;
                        };
                    };
                };
                401: components["responses"]["Error401"];
                /** @description Refused by the role policy (operator or admin). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                404: components["responses"]["Error404"];
                /** @description The run cannot be re-opened (the reason is named). */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/urgent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark up to 500 runs urgent at once; runs that cannot be marked are listed with the reason. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        runIds: string[];
                    };
                };
            };
            responses: {
                /** @description The runs marked and those refused. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Runs urgent now (those already urgent included). */
                            marked: string[];
                            /** @description Runs not marked, each with the reason. */
                            refused: {
                                runId: string;
                                reason: string;
                            }[];
                            /** @description Waiting messages moved to the urgent lanes. */
                            moved: number;
                        };
                    };
                };
                /** @description runIds missing, empty or too long. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                401: components["responses"]["Error401"];
                403: components["responses"]["Error403"];
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/runs/{id}/urgent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark a run urgent: its messages go ahead of normal work on every pool they reach.
         * @description Normal work keeps its reserved share of every worker (TRELLIS_RESERVED_SHARE, default 0.2). Marking a run already urgent changes nothing; its waiting messages move to the urgent lane under the same ids.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Marked, and how many waiting messages moved. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Runs urgent now (those already urgent included). */
                            marked: string[];
                            /** @description Runs not marked, each with the reason. */
                            refused: {
                                runId: string;
                                reason: string;
                            }[];
                            /** @description Waiting messages moved to the urgent lanes. */
                            moved: number;
                        };
                    };
                };
                401: components["responses"]["Error401"];
                403: components["responses"]["Error403"];
                404: components["responses"]["Error404"];
                409: components["responses"]["Error409b"];
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/approvals/{id}/decision": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve or reject a parked output; a rejection needs a comment and fails the run with `input_rejected`. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Approval id (the parked message id). */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        decision: "approve" | "reject";
                        comment?: string;
                    };
                };
            };
            responses: {
                /** @description Decided. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            approvalId: string;
                            runId: string;
                            /** @enum {string} */
                            status: "approved" | "rejected";
                            published: number;
                        };
                    };
                };
                /** @description A malformed decision. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                401: components["responses"]["Error401"];
                403: components["responses"]["Error403"];
                /** @description No such approval. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Already decided, the run has ended, or a rejection without a comment. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/hooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A signed webhook: start a run of its mesh on the body (JSON object or document).
         * @description Sign `"<t>.<raw body>"` with HMAC-SHA256 under the secret shown when the webhook was made, and send `Trellis-Signature: t=<unix seconds>,v1=<hex>`; `t` must be within 5 minutes of the server clock. GitHub's `X-Hub-Signature-256: sha256=<hex HMAC of the body>` is accepted too. A replay of the same signed request, the same `X-GitHub-Delivery` or the same `Idempotency-Key` answers with the first run (`reused: true`). With a callback URL, the run's answer is POSTed there when it ends, signed the same way.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description Webhook id. */
                    id: string;
                };
                cookie?: never;
            };
            /** @description `application/json`: a JSON object sent to the head as its payload; anything else: a document. */
            requestBody: {
                content: {
                    "*/*": string;
                };
            };
            responses: {
                /** @description Started (or, for a replay, the run started before). */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["StartedRun"];
                    };
                };
                /** @description The input was refused (`input_rejected`), the JSON does not parse, or the mesh has findings. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The signature is missing, malformed, outside the 5-minute window or wrong, or no enabled webhook has this id (recorded). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The mesh of the webhook is gone. */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                409: components["responses"]["Error409"];
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/{name}/claim": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Claim the oldest job parked for this service, waiting up to `wait` seconds for one. */
        post: {
            parameters: {
                query?: {
                    /** @description Long-poll seconds (0 to 30; default 0). */
                    wait?: number;
                    /** @description Seconds the claim holds the job (default 60). */
                    lease?: number;
                };
                header?: never;
                path: {
                    /** @description The registered service name. */
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @description A name for the claiming worker, kept on the job. */
                        worker?: string;
                    };
                };
            };
            responses: {
                /** @description A job, or `job: null` when none came in time. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            job: components["schemas"]["Job"] | null;
                        };
                    };
                };
                400: components["responses"]["Error400"];
                401: components["responses"]["Error401b"];
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/{name}/jobs/{jobId}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Complete a job with the service's answer; it continues the run. Idempotent by job id. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The registered service name. */
                    name: string;
                    /** @description The job id from the claim. */
                    jobId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The service's answer (any JSON value); it continues the run. */
                        output: unknown;
                    };
                };
            };
            responses: {
                /** @description Done (or done before: `duplicate`). */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["JobResult"];
                    };
                };
                400: components["responses"]["Error400"];
                401: components["responses"]["Error401b"];
                404: components["responses"]["Error404b"];
                /** @description The job failed or expired before the answer came. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/services/{name}/jobs/{jobId}/fail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Give up on a job. Retryable failures put it back for another claim (a few times); others fail the run. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The registered service name. */
                    name: string;
                    /** @description The job id from the claim. */
                    jobId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        reason: string;
                        retryable?: boolean;
                    };
                };
            };
            responses: {
                /** @description `waiting` (back for another claim) or `failed` (the run failed). */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["JobResult"];
                    };
                };
                400: components["responses"]["Error400"];
                401: components["responses"]["Error401b"];
                404: components["responses"]["Error404b"];
                /** @description The job is done or expired already. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export the audit trail (admins), newest first. */
        get: {
            parameters: {
                query?: {
                    /** @description The acting person's email. */
                    actor?: string;
                    /** @description An action, e.g. `user.role`, or a prefix ending in `.`, e.g. `user.`. */
                    action?: string;
                    /** @description From this time (ISO 8601). */
                    since?: string;
                    /** @description Up to this time (ISO 8601). */
                    until?: string;
                    /** @description Only entries before this sequence number (the next page). */
                    before?: number;
                    limit?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The entries. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            entries: {
                                seq: number;
                                at: string;
                                actorId: string | null;
                                actorEmail: string | null;
                                action: string;
                                target: string | null;
                                detail: {
                                    [key: string]: unknown;
                                };
                                prevHash: string;
                                hash: string;
                            }[];
                        };
                    };
                };
                /** @description A filter is malformed. */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                401: components["responses"]["Error401c"];
                403: components["responses"]["Error403b"];
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/backup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Snapshot the embedded database (admins).
         * @description A consistent copy taken while runs go on (between transactions, after a CHECKPOINT): PGlite's gzipped data directory, base64-encoded. `trellis restore <file>` loads it. Recorded in the audit trail as `backup.create`.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The snapshot. */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            format: "pglite-datadir-tar-gzip";
                            createdAt: string;
                            /** @description Size of the snapshot (decoded), in bytes. */
                            bytes: number;
                            /** @description Hex SHA-256 of the decoded snapshot. */
                            sha256: string;
                            /** @description The snapshot, base64. */
                            data: string;
                        };
                    };
                };
                401: components["responses"]["Error401c"];
                403: components["responses"]["Error403b"];
                /** @description The database is Postgres: back it up with pg_dump or pg_basebackup. */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                503: components["responses"]["Unavailable"];
                default: components["responses"]["UnexpectedError"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document. */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OpenAPI 3.1 */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                default: components["responses"]["UnexpectedError"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        MeshRow: {
            id: string;
            name: string;
            description: string | null;
            latestVersion: number;
            /**
             * @description ISO 8601 time.
             * @example 2026-12-01T19:30:00.000Z
             */
            updatedAt: string;
        };
        /** @description Every error answer: never a stack trace. */
        Error: {
            error: {
                /**
                 * @description Stable machine-readable reason.
                 * @example bad_input
                 * @example service_unauthorized
                 * @example mesh_invalid
                 */
                code: string;
                /** @description A sentence for a person; names the field for bad input. */
                message: string;
                /** @description The mesh's findings, when it cannot run. */
                findings?: {
                    /** @enum {string} */
                    code: "not_json" | "format_unsupported" | "schema_invalid" | "duplicate_id" | "head_missing" | "head_multiple" | "member_missing" | "condition_invalid" | "loop" | "orphan" | "nested_mesh_missing" | "nesting_cycle" | "tool_missing" | "member_config_invalid" | "condition_type_mismatch" | "sequential_branches" | "join_may_skip_parts";
                    /** @enum {string} */
                    severity: "error" | "warning";
                    member?: string;
                    channel?: string;
                    field?: string;
                    message: string;
                }[];
            };
        };
        StartedRun: {
            runId: string;
            /** @description queued | running | done | failed | stalled | cancelled */
            status: string;
            /** @description True when the Idempotency-Key named a run started before; nothing new was started. */
            reused: boolean;
        };
        RunRow: {
            id: string;
            meshId: string;
            meshName: string;
            meshVersion: number;
            status: string;
            cause: string | null;
            causeMember: string | null;
            causeMessage: string | null;
            inputName: string | null;
            createdBy: string | null;
            seconds: number;
            counts: {
                published: number;
                delivered: number;
                done: number;
                deadLettered: number;
                lost: number;
                pending: number;
                running: number;
                parked: number;
                cancelled: number;
                filtered: number;
            };
            /** @description The admission verdict: now, wait (resource, pool, messages ahead, an estimate, a sentence) or refused (the cap). */
            admission: ({
                /** @constant */
                verdict: "now";
                pool: string;
                workers: number;
                slots: number;
                behind: number;
                sentence: string;
                at: string;
            } | {
                /** @constant */
                verdict: "wait";
                /** @enum {string} */
                resource: "worker" | "slots" | "model_rate" | "db_pool" | "user_runs" | "mesh_runs";
                pool: string;
                behind: number;
                workers: number;
                slots: number;
                model?: string;
                estimateSeconds: number | null;
                waitLimitSeconds: number;
                sentence: string;
                at: string;
                releasedAt?: string;
                startedAt?: string;
                settledAt?: string;
            } | {
                /** @constant */
                verdict: "refused";
                cap: string;
                sentence: string;
                at: string;
            }) | null;
            admissionLine: string | null;
            urgent: boolean;
            severity: ("critical" | "project" | "capacity") | null;
            /**
             * @description ISO 8601 time.
             * @example 2026-12-01T19:30:00.000Z
             */
            createdAt: string;
            startedAt: string | null;
            endedAt: string | null;
            /**
             * @description ISO 8601 time.
             * @example 2026-12-01T19:30:00.000Z
             */
            movedAt: string;
            /** @description When retention pruned the run's message trail, else null. */
            prunedAt: string | null;
        };
        RunAnswer: {
            runId: string;
            meshId: string;
            meshName: string;
            meshVersion: number;
            /** @description queued | running | done | failed | stalled | cancelled */
            status: string;
            /** @description True once the status is final. */
            ended: boolean;
            /** @description One of the cause list when the run failed or stalled. */
            cause: string | null;
            causeMember: string | null;
            /** @description One plain sentence naming the member and the detail. */
            causeMessage: string | null;
            counts: {
                published: number;
                delivered: number;
                done: number;
                deadLettered: number;
                lost: number;
                pending: number;
                running: number;
                parked: number;
                cancelled: number;
                filtered: number;
            };
            /** @description The run's output (its leaf's payload) once done, else null. */
            output: unknown;
            seconds: number;
        };
        Job: {
            jobId: string;
            runId: string;
            /** @description The mesh member the job belongs to. */
            member: string;
            /** @description The parked message (any JSON). */
            payload: unknown;
            /** @description More than 1 after a lapsed lease or a retryable failure. */
            attempt: number;
            /**
             * Format: date-time
             * @description Complete or fail before this time.
             */
            leaseUntil: string;
        };
        JobResult: {
            jobId: string;
            /** @enum {string} */
            status: "done" | "waiting" | "failed";
            /** @description True when an earlier call did this already. */
            duplicate: boolean;
        };
    };
    responses: {
        /** @description No valid token or session. */
        Error401: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Redis or the database is unreachable; try again shortly. */
        Unavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Any other error (a plain sentence, never a stack trace). */
        UnexpectedError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The Idempotency-Key was used before for a different request. */
        Error409: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No such run. */
        Error404: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Refused by the role policy (operator or admin; token scope "operate"). */
        Error403: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The run has ended already. */
        Error409b: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A body or query field is wrong; the message names it. */
        Error400: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The API key is missing or wrong. */
        Error401b: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No such job for this service. */
        Error404b: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Not signed in. */
        Error401c: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Not an admin (or the token lacks scope "admin"). */
        Error403b: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
