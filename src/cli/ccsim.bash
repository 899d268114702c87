# bash completion for ccsim: subcommands, then each subcommand's options as
# its own --help lists them (one source for both), then files.
_ccsim() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$(ccsim --commands 2>/dev/null) --help --version --man" -- "$cur"))
    return
  fi
  case $cur in
  -*)
    COMPREPLY=($(compgen -W "$(ccsim "$cmd" --help 2>/dev/null | sed -n 's/^ *\(-., \)\?\(--[a-z][a-z-]*\).*/\2/p' | sort -u)" -- "$cur"))
    ;;
  *)
    if [ "$cmd" = list ]; then
      COMPREPLY=($(compgen -W "compressors memories collectives platforms models devices sources" -- "$cur"))
    else
      COMPREPLY=($(compgen -f -- "$cur"))
    fi
    ;;
  esac
}
complete -o filenames -F _ccsim ccsim
