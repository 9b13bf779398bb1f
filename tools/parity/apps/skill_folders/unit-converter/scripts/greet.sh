echo "hello $2"
echo "a warning" >&2
