import Type from 'typebox';

/** `Operation_ToolboxTranscribe.transcribe` (reference §10.9): the options of the `transcribe` operation. */
export const transcribeOptions = Type.Object({}, { description: 'Operation_ToolboxTranscribe.transcribe' });
