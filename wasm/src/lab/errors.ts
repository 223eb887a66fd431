/** Thrown for invalid input; `argument` names the offending parameter (e.g. "topP"). */
export class SamplingLabError extends Error {
  readonly argument: string;

  constructor(argument: string, message: string) {
    super(message);
    this.name = 'SamplingLabError';
    this.argument = argument;
  }
}
