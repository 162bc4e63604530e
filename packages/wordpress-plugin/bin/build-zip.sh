#!/bin/sh
# Builds dist/chat-agent-<version>.zip, installable through Plugins → Add New → Upload Plugin.
# The zip's root folder is chat-agent/ (exactly the plugin folder); the .pot is regenerated first.
set -eu
cd "$(dirname "$0")/.."
version=$(sed -n 's/^ \* Version: *//p' chat-agent/chat-agent.php | head -n 1)
if [ -z "$version" ]; then
  echo "build-zip: no Version header in chat-agent/chat-agent.php" >&2
  exit 1
fi
for file in $(find chat-agent -name '*.php'); do
  php -l "$file" >/dev/null
done
php bin/make-pot.php >/dev/null
mkdir -p dist
out="dist/chat-agent-$version.zip"
rm -f "$out"
if command -v zip >/dev/null 2>&1; then
  zip -q -r -X "$out" chat-agent -x '*.DS_Store' -x '*~'
else
  php -r '
    $out = $argv[1];
    $zip = new ZipArchive();
    if ($zip->open($out, ZipArchive::CREATE | ZipArchive::OVERWRITE) !== true) { exit(1); }
    $it = new RecursiveIteratorIterator(new RecursiveDirectoryIterator("chat-agent", FilesystemIterator::SKIP_DOTS));
    foreach ($it as $file) { $zip->addFile($file->getPathname(), $file->getPathname()); }
    exit($zip->close() ? 0 : 1);
  ' "$out"
fi
echo "$out"
