# Sourced by run.sh and minimize.sh: the project's own test inputs that seed a target
# besides its committed corpus (they are read in place, never copied into corpus/).
#   shared_seed_dirs TARGET   prints the directories, relative to fuzz/, one per line
shared_seed_dirs() {
    case $1 in
        fatbin_reader) echo ../kernel-build/tests/fixtures ;;
        parser) echo ../kernel-build/tests/front_corpus ;;
    esac
}
