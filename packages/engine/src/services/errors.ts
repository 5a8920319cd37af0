/** Errors of the outside-service API, each with the HTTP status it answers with. */
import { EngineError } from '../kernel/errors';

/** The API key is missing or does not belong to the named service. */
export class ServiceUnauthorizedError extends EngineError {
  static override readonly httpStatus = 401;
  constructor(service: string, missing: boolean) {
    super(
      'service_unauthorized',
      missing
        ? `service ${service}: no API key given; send it as "Authorization: Bearer <key>"`
        : `service ${service}: the API key is wrong, or no service of that name is registered`,
    );
    this.name = 'ServiceUnauthorizedError';
  }
}

/** No job of that id belongs to the service. */
export class ServiceJobNotFoundError extends EngineError {
  static override readonly httpStatus = 404;
  constructor(service: string, jobId: string) {
    super('service_job_not_found', `service ${service} has no job ${jobId}`);
    this.name = 'ServiceJobNotFoundError';
  }
}

/** The job cannot take this call in its state, e.g. completing a job that expired. */
export class ServiceJobConflictError extends EngineError {
  static override readonly httpStatus = 409;
  constructor(
    jobId: string,
    readonly jobStatus: string,
    action: string,
  ) {
    super('service_job_conflict', `job ${jobId} is ${jobStatus}, so it cannot be ${action}`);
    this.name = 'ServiceJobConflictError';
  }
}

/** A service of that name is registered already. */
export class ServiceExistsError extends EngineError {
  static override readonly httpStatus = 409;
  constructor(name: string) {
    super('service_exists', `a service named ${name} is registered already; remove it first or pick another name`);
    this.name = 'ServiceExistsError';
  }
}
