/**
 * Types of Trellis's REST API, generated from its OpenAPI document (packages/api/src/rest) by
 * `npm run generate:sdk --workspace @trellis/api`. Do not edit: regenerate.
 */
export interface paths {
    "/api/v1/meshes/{id}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a run of a mesh's latest version (or ?version=n) on a document. */
        post: {
            parameters: {
                query?: {
                    /** @description Mesh version; default the latest. */
                    version?: number;
                };
                header?: {
                    /** @description The file name, URL-encoded, when the body is raw bytes. */
                    "x-file-name"?: string;
                };
                path: {
                    /** @description Mesh id. */
                    id: string;
                };
                cookie?: never;
            };
            /** @description The document: the file's bytes as the body (any content type), or form data with a `file` field. */
            requestBody: {
                content: {
                    "application/octet-stream": string;
                    "multipart/form-data": {
                        file: string;
                    };
                };
            };
            responses: {
                /** @description Started. */
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
                /** @description The input was refused or the mesh has findings (listed). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not signed in, or the session has ended. */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Refused by the role policy (starting runs needs designer, operator or admin). */
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
                401: components["responses"]["Error401"];
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
                401: components["responses"]["Error401"];
                404: components["responses"]["Error404"];
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
                401: components["responses"]["Error401"];
                404: components["responses"]["Error404"];
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
                /** @description Not signed in. */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not an admin (or the token lacks scope "admin"). */
                403: {
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
        StartedRun: {
            runId: string;
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
        Error401: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No such job for this service. */
        Error404: {
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
