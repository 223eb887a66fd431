/**
 * `sampling-lab/handbook`: every figure the handbook prints, with the chapter that prints it.
 * @module sampling-lab/handbook
 */
export * from '../widgets/handbook.js';
