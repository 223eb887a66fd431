// sampling-lab/handbook: every figure the handbook prints, with the chapter that prints it.
export * from '../widgets/handbook.js';
