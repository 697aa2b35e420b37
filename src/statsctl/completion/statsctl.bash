# SPDX-License-Identifier: BSD-2-Clause
# bash completion for statsctl(8): verbs, each verb's options, formats,
# and kstat and statistic names asked of the running statsd.

# The words are split at blanks only, from COMP_LINE, so that a kstat
# name (module:instance:name) stays one word whatever COMP_WORDBREAKS
# holds: _statsctl_words is the line, _statsctl_cword the word completed.

# statsctl with the --socket the command line gives, if any.
_statsctl_run()
{
	local i sock=
	for ((i = 1; i < _statsctl_cword; i++)); do
		if [[ ${_statsctl_words[i]} == --socket ]]; then
			sock=${_statsctl_words[i + 1]}
		fi
	done
	statsctl ${sock:+--socket "$sock"} "$@" 2>/dev/null
}

# module:instance:name of the kstats that start with $1.
_statsctl_kstats()
{
	_statsctl_run show -l -- "$1*" | cut -d: -f1-3 | sort -u
}

_statsctl()
{
	local line=${COMP_LINE:0:${COMP_POINT:-${#COMP_LINE}}}
	local -a _statsctl_words
	local _statsctl_cword cur prev
	read -ra _statsctl_words <<<"$line"
	[[ -z $line || $line == *[[:space:]] ]] && _statsctl_words+=("")
	_statsctl_cword=$((${#_statsctl_words[@]} - 1))
	cur=${_statsctl_words[_statsctl_cword]}
	prev=${_statsctl_words[_statsctl_cword - 1]}
	local verbs="show watch iostat hist data definition define on off
	    reset snapshot templates sample-rates scrape info help"
	local verb= i nargs=0 words opts

	# The verb is the first word that is not a global option.
	for ((i = 1; i < _statsctl_cword; i++)); do
		case ${_statsctl_words[i]} in
		--socket) ((i++)) ;;
		-*) ;;
		*)
			if [[ -z $verb ]]; then
				verb=${_statsctl_words[i]}
			else
				((nargs++))
			fi
			;;
		esac
	done

	if [[ $prev == --socket ]]; then
		COMPREPLY=($(compgen -f -- "$cur"))
		return
	fi
	case $verb in
	'')
		words="--socket --json --help --version"
		[[ $cur == -* ]] || words=$verbs
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
		;;
	help)
		COMPREPLY=($(compgen -W "$verbs" -- "$cur"))
		return
		;;
	esac

	case $prev in
	-f | --format)
		COMPREPLY=($(compgen -W "json kstat linux" -- "$cur"))
		return
		;;
	-T)
		COMPREPLY=($(compgen -W "u d" -- "$cur"))
		return
		;;
	-c | --class | -t | -m | -i | -n | -s | --interval | --count)
		# iostat's -n takes no argument.
		[[ $verb == iostat ]] || return
		;;
	esac

	case $verb in
	show) opts="-p -j -C -l -q -T -c -t -m -i -n -s --parseable --json" ;;
	watch) opts="-j -p -i -n -c --json --parseable --interval --count
	    --class" ;;
	iostat) opts="-x -n --extended --names-last" ;;
	hist | data | definition) opts="-j -p --json --parseable" ;;
	snapshot) opts="--reset --raw -p --parseable" ;;
	templates) opts="-j -p -l --json --parseable --long" ;;
	sample-rates) opts="-j -p --json --parseable" ;;
	scrape) opts="-f -c --format --class" ;;
	info) opts="-j -p -c --json --parseable --config" ;;
	*) opts= ;;
	esac
	opts+=" --help"
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi

	case $verb in
	show | watch | iostat | scrape | hist | data | definition | define | \
	    snapshot)
		((nargs == 0)) || [[ $verb == show ]] || return
		COMPREPLY=($(_statsctl_kstats "$cur"))
		;;
	on | off | reset)
		if ((nargs == 0)); then
			COMPREPLY=($(_statsctl_kstats "$cur"))
		else
			# The statistics of the kstat given, from its
			# definition lines.
			local k
			for ((i = 1; i < _statsctl_cword; i++)); do
				[[ ${_statsctl_words[i]} == *:*:* ]] &&
				    k=${_statsctl_words[i]}
			done
			words=$(_statsctl_run definition -p "$k" |
			    sed -n 's/^name=\([^ ]*\) .*/\1/p')
			COMPREPLY=($(compgen -W "$words" -- "$cur"))
		fi
		;;
	sample-rates)
		words=$(_statsctl_run templates -p | cut -f1)
		COMPREPLY=($(compgen -W "$words" -S = -- "$cur"))
		compopt -o nospace 2>/dev/null
		;;
	esac

	# With ':' in COMP_WORDBREAKS (bash's default) bash replaces only
	# what follows the last ':' of the word: offer that part.
	if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
		local pre=${cur%"${cur##*:}"}
		COMPREPLY=("${COMPREPLY[@]#"$pre"}")
	fi
}

complete -F _statsctl statsctl
