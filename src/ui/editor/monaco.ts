/**
 * Monaco, lean: the core editor API, C highlighting and the handful of
 * editor features a C playground needs (hover for markers, find, comments,
 * brackets, go-to-error, tab-focus mode for keyboard users, suggestions for
 * the headers' names). The full
 * 'monaco-editor' entry would pull in every language worker (~7 MB).
 */
import * as monaco from 'monaco-editor/editor/editor.api';
import 'monaco-editor/languages/definitions/cpp/register';
import 'monaco-editor/features/hover/register';
import 'monaco-editor/features/find/register';
import 'monaco-editor/features/comment/register';
import 'monaco-editor/features/bracketMatching/register';
import 'monaco-editor/features/clipboard/register';
import 'monaco-editor/features/contextmenu/register';
import 'monaco-editor/features/gotoError/register';
import 'monaco-editor/features/linesOperations/register';
import 'monaco-editor/features/wordOperations/register';
import 'monaco-editor/features/multicursor/register';
import 'monaco-editor/features/toggleTabFocusMode/register';
import 'monaco-editor/features/indentation/register';
import 'monaco-editor/features/gotoLine/register';
import 'monaco-editor/features/suggest/register';
// features/suggest/register brings only the inline-completions bridge; the
// suggestion widget itself is the SuggestController contribution.
import 'monaco-editor/editor/contrib/suggest/browser/suggestController';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';

(self as unknown as { MonacoEnvironment: unknown }).MonacoEnvironment = {
  getWorker: () => new EditorWorker(),
};

export { monaco };
