import { AppError } from '../errors/app-error.js';

// `npm run cli -- bootstrap --password P` puts the password on the command line, where npm
// prints it and `ps` shows it. These read it from standard input instead: piped
// (`--password-stdin`) or typed at a prompt that does not echo.

/** A readable stream as the prompt needs it: a TTY's raw mode is optional so tests can drive it. */
export type PromptInput = NodeJS.ReadableStream & {
  isTTY?: boolean;
  setRawMode?: (mode: boolean) => unknown;
};

/** Everything on `input` until it ends, as UTF-8, without one trailing newline (`\n` or `\r\n`). */
export async function readPasswordFromStream(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/**
 * Asks for a password on a terminal without echoing it: raw mode, characters collected until
 * Enter; Backspace deletes one, Ctrl-C cancels. Only the question and a newline are written.
 */
export function promptHidden(
  question: string,
  input: PromptInput,
  output: NodeJS.WritableStream,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let value = '';
    output.write(question);
    input.setRawMode?.(true);
    const finish = () => {
      input.removeListener('data', onData);
      input.setRawMode?.(false);
      input.pause();
      output.write('\n');
    };
    const onData = (chunk: Buffer | string) => {
      const chars = Array.from(String(chunk));
      for (const [index, char] of chars.entries()) {
        if (char === '\r' || char === '\n' || char === '\u0004') {
          finish();
          // Typed ahead (or pasted): what follows this line is the next prompt's.
          const rest = chars
            .slice(char === '\r' && chars[index + 1] === '\n' ? index + 2 : index + 1)
            .join('');
          if (rest !== '') input.unshift(Buffer.from(rest));
          resolve(value);
          return;
        }
        if (char === '\u0003') {
          finish();
          reject(new AppError('validation_failed', { message: 'Cancelled.', errors: {} }));
          return;
        }
        if (char === '\u007f' || char === '\b') value = Array.from(value).slice(0, -1).join('');
        else value += char;
      }
    };
    input.on('data', onData);
    input.resume();
  });
}

/**
 * The password `bootstrap` uses: `--password` as given, `--password-stdin` read from `input`,
 * or (neither, on a terminal) asked twice at a hidden prompt; with neither and no terminal,
 * a validation error says how to give it.
 */
export async function resolvePassword(options: {
  password: string | undefined;
  passwordStdin: boolean;
  input: PromptInput;
  output: NodeJS.WritableStream;
}): Promise<string> {
  const { password, passwordStdin, input, output } = options;
  if (password !== undefined && passwordStdin) {
    throw new AppError('validation_failed', {
      message: 'Give the password one way: --password or --password-stdin, not both.',
      errors: { password: ['Use either --password or --password-stdin.'] },
    });
  }
  if (password !== undefined) return password;
  if (passwordStdin) return readPasswordFromStream(input);
  if (!input.isTTY) {
    throw new AppError('validation_failed', {
      message:
        'No password given: pipe it in with --password-stdin, or run in a terminal to be asked for it.',
      errors: { password: ['Required: --password-stdin (reads standard input) or a terminal prompt.'] },
    });
  }
  const first = await promptHidden('Password: ', input, output);
  const second = await promptHidden('Repeat the password: ', input, output);
  if (first !== second) {
    throw new AppError('validation_failed', {
      message: 'The passwords do not match.',
      errors: { password: ['The two passwords typed differ.'] },
    });
  }
  return first;
}
